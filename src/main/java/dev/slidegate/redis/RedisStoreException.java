package dev.slidegate.redis;

import dev.slidegate.api.StoreUnavailableException;

/** The Redis store could not decide: Redis answered an error, was unreachable, or took too long. */
public class RedisStoreException extends StoreUnavailableException {

    public RedisStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
