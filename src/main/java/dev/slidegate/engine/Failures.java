package dev.slidegate.engine;

import java.util.List;
import java.util.concurrent.CompletionException;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.StoreUnavailableException;

/** Every failure on a call's way becomes an outcome here: the chain never fails a call ({@link Chain}). */
final class Failures {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    private Failures() {
    }

    /** The store could not decide: the policy's fail mode answered with {@code error}. */
    static Outcome ofStore(Throwable error, List<Decision> made) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        StoreUnavailableException unavailable = e instanceof StoreUnavailableException s ? s
                : new StoreUnavailableException("The rate-limit store failed: " + e, e);
        LOG.debugf("Rate-limit store unavailable: %s", unavailable.getMessage()); // the breaker logs outages once, not per request
        return new Outcome.StoreUnavailable(made, unavailable);
    }

    /** A missing key (nothing charged), or anything else: a resolver's bug, logged once. */
    static Outcome of(RuntimeException e, MethodPolicy mp, List<Decision> made) {
        if (e instanceof MissingRateLimitKeyException missing) {
            return new Outcome.KeyMissing(missing);
        }
        LOG.errorf(e, "%s: policy '%s' could not decide a call", mp.where(), mp.policy().name());
        return new Outcome.Failed(made, mp.policy().name(), e);
    }
}
