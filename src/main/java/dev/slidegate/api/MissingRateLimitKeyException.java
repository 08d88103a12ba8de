package dev.slidegate.api;

/**
 * The request lacks what its policy keys callers by (e.g. the header of {@code header:X-Api-Key}): a 400, not a shared bucket.
 */
public class MissingRateLimitKeyException extends RuntimeException {

    private final String policy;

    public MissingRateLimitKeyException(String policy, String message) {
        super(message, null, false, false);
        this.policy = policy;
    }

    /** The policy that needed the key. */
    public String policy() {
        return policy;
    }
}
