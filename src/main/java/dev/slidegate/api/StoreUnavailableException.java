package dev.slidegate.api;

/** A store could not decide (unreachable, too slow, or answered an error). Never read as "allowed". */
public class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
