package dev.slidegate.core;

import java.util.concurrent.CompletionStage;

/**
 * A store's failure to answer a call in time, whose answer may still come: the call reached the store and may have
 * run there (a decision charged, with nothing to say so yet). {@link #lateAnswer} completes with what the store
 * answered after all (a {@link dev.slidegate.api.Decision} for a decision), or with {@code null} when nothing came
 * while it was listened for, or the connection failed; it always completes, within a bounded time.
 *
 * <p>
 * {@link FallbackStore} uses it so that a permit its fail mode admitted is not charged to the store a second time when
 * the store had charged it already (a cold or busy store that answered a little after the budget).
 */
public interface AnsweredLate {

    CompletionStage<Object> lateAnswer();
}
