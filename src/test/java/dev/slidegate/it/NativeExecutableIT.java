package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The native executable fits the container images that ship it ({@code src/main/docker/Dockerfile.native}
 * and {@code Dockerfile.native-micro}, both UBI 9): it needs no glibc symbol newer than 2.34, UBI 9's, and
 * no shared library besides glibc's, zlib and the C++ runtime. Runs with {@code -Dnative} only; without an
 * executable it says so and is skipped.
 */
class NativeExecutableIT {

    static final String UBI9_GLIBC = "2.34";
    static final Set<String> IN_THE_IMAGES = Set.of("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
            "ld-linux-x86-64.so.2", "libz.so.1", "libstdc++.so.6", "libgcc_s.so.1");

    @Test
    void needsNothingNewerThanUbi9Has() throws Exception {
        if (!ServiceProcess.nativeExecutable()) {
            String why = "no native executable: NativeExecutableIT runs with ./mvnw verify -Dnative (docs/native.md)";
            System.out.println("Skipped: " + why);
            Assumptions.abort(why);
        }
        String exe = System.getProperty("native.image.path");
        String symbols = run("objdump", "-T", exe);
        Set<String> versions = new TreeSet<>();
        Matcher m = Pattern.compile("GLIBC_(\\d+\\.\\d+(?:\\.\\d+)?)").matcher(symbols);
        while (m.find()) {
            versions.add(m.group(1));
        }
        assertTrue(!versions.isEmpty(), "objdump found no glibc symbol versions: " + symbols.lines().limit(5).toList());
        for (String v : versions) {
            assertTrue(compare(v, UBI9_GLIBC) <= 0, "the executable needs GLIBC_" + v + ", UBI 9 has " + UBI9_GLIBC
                    + "; all: " + versions);
        }
        Set<String> needed = new TreeSet<>();
        Matcher n = Pattern.compile("NEEDED\\s+(\\S+)").matcher(run("objdump", "-p", exe));
        while (n.find()) {
            needed.add(n.group(1));
        }
        assertTrue(IN_THE_IMAGES.containsAll(needed), "shared libraries needed: " + needed);
    }

    private static int compare(String a, String b) {
        String[] x = a.split("\\."), y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int d = Integer.compare(i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
