package dev.slidegate.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

/**
 * Limits how often a method may be called, per caller. On a class it applies to every business
 * method; on a method it replaces the class's.
 *
 * <p>
 * Either name a configured policy, {@code @RateLimited("products")}, or give the limits inline,
 * {@code @RateLimited(limits = {"500/2s", "2000/10s"}, key = "ip")}. Every member follows one rule:
 * the policy's configuration ({@code slidegate.policies.<name>.*}) wins, else what the annotation
 * sets, else {@code slidegate.defaults.*}, else the built-in default.
 *
 * <p>
 * Works on JAX-RS resource methods and any CDI bean method, for plain, {@code Uni} and
 * {@code CompletionStage} return types. A refused call throws (or fails with)
 * {@link dev.slidegate.api.RateLimitExceededException}, which the HTTP layer answers with 429.
 */
@InterceptorBinding
@Inherited
@Repeatable(RateLimited.List.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
public @interface RateLimited {

    /**
     * Several policies on one method, each its own: {@code @RateLimited("per-user")
     * @RateLimited("per-tenant")}, each with its own key. They are decided together, in one atomic step of the
     * store: every one must admit the call, and then all are charged; a call refused by any is charged by none
     * (docs/strategies.md, "Several policies on one call"). Every policy's key is found before any is asked, so a
     * call lacking a later policy's key is refused and charged nothing.
     */
    @Inherited
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ ElementType.TYPE, ElementType.METHOD })
    @interface List {
        RateLimited[] value();
    }

    /**
     * The policy name. With inline {@link #limits()} it names that policy (so configuration can
     * override it); without, a policy of this name must be configured. Empty: an inline policy named
     * {@code SimpleClassName.method}.
     */
    @Nonbinding
    String value() default "";

    /** Inline limits, all checked together, e.g. {@code {"500/2s", "2000/10s"}}. Units ms, s, m, h, d. */
    @Nonbinding
    String[] limits() default {};

    /**
     * Inline concurrency limit: at most this many calls of one key in flight at once, on every instance together, instead
     * of {@link #limits()} (a call holds a lease from its admission until it is done). 0 (unset): the policy's
     * {@code max-in-flight}, if any.
     */
    @Nonbinding
    int maxInFlight() default 0;

    /**
     * With {@link #maxInFlight()}: how long a lease lives unless its instance renews it ({@code "30s"}; 1s to 1d). Empty:
     * the policy's {@code lease}, else 30s.
     */
    @Nonbinding
    String lease() default "";

    /**
     * What a permit counts: {@code "tokens"}, {@code "bytes"}... (a lower-case word), said in the RateLimit fields, problem
     * details, metrics and the admin. Empty (unset): the policy's {@code unit}, else {@code requests}. Not with
     * {@link #maxInFlight()}, which counts calls running.
     */
    @Nonbinding
    String unit() default "";

    /**
     * {@code sliding-log} (exact), {@code sliding-counter} (exact, bounded memory), {@code fixed-window}
     * or {@code token-bucket}; see docs/strategies.md. Empty: the policy's, else {@code sliding-log}.
     */
    @Nonbinding
    String strategy() default "";

    /**
     * Whose calls count together: {@code ip}, {@code user} (the authenticated principal; anonymous
     * callers by {@code ip}), {@code global}, {@code path}, {@code header:<Name>}, {@code param:<name>},
     * the name of a {@code @Named} {@link KeyResolver} bean, or several joined by {@code +}
     * ({@code ip+path}). Empty: the policy's, else {@code ip}. A parameter annotated
     * {@link RateLimitKey} takes precedence.
     */
    @Nonbinding
    String key() default "";

    /**
     * {@code ON}: charge refused attempts too, so a caller who keeps trying stays locked out
     * (brute-force protection). {@code UNSET}: the policy's, else the defaults', else off.
     */
    @Nonbinding
    Toggle countRejected() default Toggle.UNSET;

    /**
     * {@code ON}: decide and report, but never refuse, for rolling out a new limit safely.
     * {@code UNSET}: the policy's, else the defaults', else off.
     */
    @Nonbinding
    Toggle dryRun() default Toggle.UNSET;

    /**
     * Permits one call weighs, at least 1: an export might cost 10 where a read costs 1. A call that
     * costs more than a limit's N can never be admitted and is always refused. 0 (unset): the
     * policy's, else the defaults', else 1.
     */
    @Nonbinding
    int cost() default 0;

    /**
     * How long a call may wait for its permit instead of being refused: {@code "2s"}, {@code "500ms"} (0 to one day;
     * {@code "0"} refuses at once). A call whose permit frees within it is admitted for that instant and held until
     * then without a thread; one whose permit frees later is refused at once, with its {@code Retry-After}. Empty
     * (unset): the policy's {@code max-wait}, else the defaults', else 0.
     */
    @Nonbinding
    String maxWait() default "";

    /**
     * A yes/no member an annotation may set either way or leave unset, so that it can turn off what
     * {@code slidegate.defaults.*} turns on. Members follow one rule: the policy's configuration, else
     * the annotation, else the defaults.
     */
    enum Toggle {
        /** Not set here: the policy's configuration, else the defaults, decide. */
        UNSET,
        /** On, unless the policy's configuration says otherwise. */
        ON,
        /** Off, unless the policy's configuration says otherwise. */
        OFF;

        /** {@code null} for {@code UNSET}. */
        public Boolean value() {
            return this == UNSET ? null : this == ON;
        }
    }
}
