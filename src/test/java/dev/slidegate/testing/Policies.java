package dev.slidegate.testing;

import java.util.List;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;

/** Policies as tests build them: by name, strategy and limits in their configuration spelling. */
public final class Policies {

    private Policies() {
    }

    /** A policy keyed by {@code ip}, e.g. {@code policy("p", SLIDING_LOG, false, "5/1s", "20/1m")}. */
    public static Policy policy(String name, Strategy strategy, boolean countRejected, String... limits) {
        return new Policy(name, List.of(limits).stream().map(Limit::parse).toList(), strategy, "ip", countRejected);
    }
}
