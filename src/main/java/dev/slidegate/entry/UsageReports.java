package dev.slidegate.entry;

import java.util.List;

import dev.slidegate.api.ReportsUsage;
import dev.slidegate.api.Usage;
import dev.slidegate.engine.MethodPolicy;

/** What a settled method's result says it used ({@link ReportsUsage}), reported as the result comes, in its own shape. */
final class UsageReports {

    private UsageReports() {
    }

    /**
     * {@code result} reporting what it says it used ({@link ReportsUsage}) to {@code usage} when it comes: a {@code Uni}'s
     * item, each of a {@code Multi}'s items (added up), a stage's value, a plain value at once.
     */
    static Object reporting(Object result, MethodPolicy.Kind kind, java.util.function.Supplier<Usage> usage) {
        return switch (kind) {
            case UNI -> ((io.smallrye.mutiny.Uni<?>) result).invoke(item -> report(item, usage, false));
            case MULTI -> ((io.smallrye.mutiny.Multi<?>) result).invoke(item -> report(item, usage, true));
            case STAGE -> ((java.util.concurrent.CompletionStage<?>) result).thenApply(value -> {
                report(value, usage, false);
                return value;
            });
            case PLAIN -> {
                report(result, usage, false);
                yield result;
            }
        };
    }

    private static void report(Object value, java.util.function.Supplier<Usage> usage, boolean add) {
        if (value instanceof ReportsUsage r) {
            if (add) {
                usage.get().add(r.used());
            } else {
                usage.get().report(r.used());
            }
        }
    }

    /** Whether any of {@code policies} settles its calls. */
    static boolean settles(List<MethodPolicy> policies) {
        for (MethodPolicy mp : policies) {
            if (mp.settlement().settles()) {
                return true;
            }
        }
        return false;
    }
}
