package dev.slidegate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The container files match what the build makes and what the service listens on: no container runtime
 * runs here, so what can be checked without one is checked from the files. The native images copy the
 * executable the native build names ({@code <finalName>-runner}, as {@code native.image.path} in the pom),
 * expose the port the service listens on by default and make it listen on every interface; the JVM image
 * runs a Java at least as new as the release the classes are compiled for. Whether the executable's C
 * library needs fit the base images (glibc 2.34 in UBI 9) is checked against the executable itself by
 * {@code dev.slidegate.it.NativeExecutableIT}.
 */
class ContainerImagesTest {

    static final Path DOCKER = Path.of("src/main/docker");

    @ParameterizedTest
    @ValueSource(strings = { "Dockerfile.native", "Dockerfile.native-micro" })
    void theNativeImagesCopyTheExecutableTheBuildMakesAndListenOnEveryInterface(String file) throws IOException {
        String text = Files.readString(DOCKER.resolve(file));
        String pom = Files.readString(Path.of("pom.xml"));
        String finalName = tag(pom, "artifactId") + "-" + tag(pom, "version");
        assertTrue(
                pom.contains(
                        "<native.image.path>${project.build.directory}/${project.build.finalName}-runner</native.image.path>"),
                "the native build's executable is <finalName>-runner");

        Matcher copy = Pattern.compile("(?m)^COPY .*?(target/\\S+) /work/application$").matcher(text);
        assertTrue(copy.find(), file + " copies the executable to /work/application");
        assertTrue(
                FileSystems.getDefault().getPathMatcher("glob:" + copy.group(1))
                        .matches(Path.of("target", finalName + "-runner")),
                copy.group(1) + " matches target/" + finalName + "-runner");

        assertEquals(List.of(String.valueOf(defaultPort()), "9081"), exposed(text),
                file + " exposes the ports the service listens on: HTTP, and Envoy's rate-limit service");
        assertTrue(text.contains("ENTRYPOINT [\"./application\", \"-Dquarkus.http.host=0.0.0.0\"]"),
                file + " starts the executable listening on every interface");
        assertTrue(Pattern
                .compile("(?m)^FROM (registry\\.access\\.redhat\\.com/ubi9/ubi-minimal|quay\\.io/quarkus/quarkus-micro-image):")
                .matcher(text).find(),
                file + " is based on UBI 9 (glibc 2.34), which NativeExecutableIT checks the executable against");
    }

    @ParameterizedTest
    @ValueSource(strings = { "Dockerfile.jvm" })
    void theJvmImageRunsTheFastJarOnAJavaTheClassesNeed(String file) throws IOException {
        String text = Files.readString(DOCKER.resolve(file));
        int release = Integer.parseInt(tag(Files.readString(Path.of("pom.xml")), "maven.compiler.release"));
        Matcher from = Pattern.compile("(?m)^FROM registry\\.access\\.redhat\\.com/ubi9/openjdk-(\\d+):").matcher(text);
        assertTrue(from.find(), file + " is based on a UBI 9 OpenJDK image");
        assertTrue(Integer.parseInt(from.group(1)) >= release,
                "Java " + from.group(1) + " runs classes for release " + release);
        assertTrue(text.contains("COPY --chown=185 target/quarkus-app/quarkus/ /deployments/quarkus/"),
                "the fast jar's layout");
        assertTrue(text.contains("ENV JAVA_APP_JAR=\"/deployments/quarkus-run.jar\""), "runs quarkus-run.jar");
        assertTrue(text.contains("-Dquarkus.http.host=0.0.0.0"), "listens on every interface");
        assertEquals(List.of(String.valueOf(defaultPort()), "9081"), exposed(text), "HTTP, and Envoy's rate-limit service");
    }

    /** The HTTP port of the packaged service: quarkus.http.port of application.properties, else Quarkus' 8080. */
    private static int defaultPort() throws IOException {
        Matcher m = Pattern.compile("(?m)^quarkus\\.http\\.port=(\\d+)$")
                .matcher(Files.readString(Path.of("src/main/resources/application.properties")));
        return m.find() ? Integer.parseInt(m.group(1)) : 8080;
    }

    private static List<String> exposed(String dockerfile) {
        return Pattern.compile("(?m)^EXPOSE ([\\d ]+)$").matcher(dockerfile).results()
                .flatMap(r -> java.util.Arrays.stream(r.group(1).trim().split(" +"))).toList();
    }

    /** The first {@code <name>…</name>} after the parent block: the project's own coordinates and properties. */
    private static String tag(String pom, String name) {
        int parentEnd = Math.max(0, pom.indexOf("</parent>"));
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(pom);
        if (!m.find(parentEnd)) {
            throw new AssertionError("pom.xml has no <" + name + ">");
        }
        return m.group(1).trim();
    }
}
