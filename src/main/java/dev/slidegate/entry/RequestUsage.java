package dev.slidegate.entry;

import dev.slidegate.api.Usage;

/**
 * The {@link Usage} of an HTTP request, which also knows whether a REST client call made for it read the usage of an
 * answer ({@code usage-from=answer}): the endpoint that returns that answer relays what was counted, and does not count
 * it again ({@link UsageReports.AnswerTally}).
 */
final class RequestUsage extends Usage {

    /** Whether a REST client call of this request read the usage of its answer. */
    volatile boolean readFromClient;
}
