package dev.slidegate.api;

/**
 * A result that says what its call used, for a policy with {@code settle=true}: the item of a {@code Uni}, each item of
 * a {@code Multi} (added up), the value of a {@code CompletionStage} or a plain return value that implements it is
 * reported as the call's usage, as {@link Usage#report} (a {@code Multi}'s items as {@link Usage#add}) would.
 * {@code record Completion(String text, long tokens) implements ReportsUsage { public long used() { return tokens; } }}
 */
public interface ReportsUsage {

    /** What the call used, in its policies' unit: 0 or more. */
    long used();
}
