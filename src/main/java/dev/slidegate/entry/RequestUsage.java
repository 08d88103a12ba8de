package dev.slidegate.entry;

import dev.slidegate.api.Usage;

/**
 * The {@link Usage} of an HTTP request, which also knows whether its policies read usage from answers, and whether a
 * REST client call made for it read the usage of an answer ({@code usage-from=answer}): the endpoint that returns that
 * answer relays what was counted, and does not count it again ({@link UsageReports.AnswerTally}).
 */
final class RequestUsage extends Usage {

    /** Whether a REST client call of this request read the usage of its answer. */
    volatile boolean readFromClient;
    /**
     * Whether a policy of this request reads its usage from answers ({@code usage-from=answer}): then the answers of the
     * REST clients it calls are read, a library's own client's too (one no {@code @RateLimited} paces).
     */
    volatile boolean readsAnswers;
    /** Whether any request has read answers: until one does, a REST client's request costs one read of this. */
    static volatile boolean anyReadsAnswers;

    void readAnswers() {
        readsAnswers = true;
        if (!anyReadsAnswers) {
            anyReadsAnswers = true;
        }
    }
}
