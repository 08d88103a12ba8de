package dev.slidegate.bench;

import java.nio.file.Path;

/** Lets the smoke run in the integration-test phase (after the jar is packaged) call the benchmark. */
public final class HttpBenchmarkAccess {

    private HttpBenchmarkAccess() {
    }

    public static String run(int seconds, int connections, Path chart) throws Exception {
        return HttpBenchmark.run(seconds, 0, connections, chart); // no warm-up: the smoke run checks that every part runs
    }
}
