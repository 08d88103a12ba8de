package dev.slidegate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * Rules of the code's shape, checked in every build (issue 57). One clock: every component that reads time takes the
 * instance's {@link dev.slidegate.core.Clock} (wall and monotonic), so a test that moves it moves waits, leases, upstream
 * holds, settlements and calendar periods alike; only the clock itself reads the system's. The demo application (the
 * code Slidegate protects, which stamps its own answers) is not Slidegate.
 */
class ArchitectureTest {

    private static final JavaClasses SLIDEGATE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.slidegate");
    /** What a service depends on: Slidegate without its demo application. */
    private static final JavaClasses SHIPPED = SLIDEGATE
            .that(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("dev.slidegate.demo..")));

    /** The system's clocks, read directly or through a method reference. */
    private static final DescribedPredicate<AccessTarget> SYSTEM_TIME = new DescribedPredicate<>(
            "a read of the system's clock (System.nanoTime, System.currentTimeMillis, now() of java.time)") {
        private final Set<String> javaTime = Set.of("java.time.Instant", "java.time.LocalDate", "java.time.LocalDateTime",
                "java.time.ZonedDateTime", "java.time.OffsetDateTime", "java.time.LocalTime", "java.time.Clock");

        @Override
        public boolean test(AccessTarget t) {
            String owner = t.getOwner().getName();
            String name = t.getName();
            return owner.equals("java.lang.System") && (name.equals("nanoTime") || name.equals("currentTimeMillis"))
                    || javaTime.contains(owner) && (name.equals("now") || name.equals("systemUTC")
                            || name.equals("systemDefaultZone"));
        }
    };

    @Test
    void onlyTheClockReadsTheSystemsTime() {
        noClasses().that().doNotHaveFullyQualifiedName(dev.slidegate.core.Clock.class.getName())
                .and().resideOutsideOfPackage("dev.slidegate.demo..")
                .and().doNotHaveFullyQualifiedName(dev.slidegate.core.Clock.class.getName() + "$1")
                .should().accessTargetWhere(SYSTEM_TIME.onResultOf(JavaAccess::getTarget))
                .because("every component takes the instance's dev.slidegate.core.Clock (issue 57)").check(SLIDEGATE);
    }

    // the engine's core and the in-process store are plain Java: no framework type (Vert.x, JAX-RS, CDI, Quarkus) below
    // the entry points, so a store or a decorator runs in a unit test as it runs in the service
    @Test
    void theCoreAndTheInProcessStoreArePlainJava() {
        classes().that().resideInAnyPackage("dev.slidegate.core..", "dev.slidegate.memory..").should()
                .onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.slidegate.api..", "dev.slidegate.core..",
                        "dev.slidegate.memory..", "org.jboss.logging..")
                .because("framework types stay at the entry points (issue 57)").check(SLIDEGATE);
    }

    // layering: the stores (core, memory, redis) and the public API never reach up into the entry points, the HTTP
    // adapters, the admin or the configuration
    @Test
    void theStoresAndTheApiNeverReachUp() {
        noClasses().that().resideInAnyPackage("dev.slidegate.core..", "dev.slidegate.memory..", "dev.slidegate.redis..",
                "dev.slidegate.api..").should().dependOnClassesThat()
                .resideInAnyPackage("dev.slidegate.engine..", "dev.slidegate.entry..", "dev.slidegate.http..",
                        "dev.slidegate.admin..",
                        "dev.slidegate.config..", "dev.slidegate.health..", "dev.slidegate.demo..")
                .because("docs/architecture.md draws the stores below the engine").check(SLIDEGATE);
    }

    // the engine (the stages one call runs through) sees no framework of HTTP or threads: the entry points adapt Vert.x and
    // JAX-RS requests to an Exchange, and its threads to Threads, so the whole chain runs in a unit test
    @Test
    void theEngineSeesNoHttpFramework() {
        noClasses().that().resideInAPackage("dev.slidegate.engine..").should().dependOnClassesThat()
                .resideInAnyPackage("io.vertx..", "jakarta.ws.rs..", "org.jboss.resteasy..", "io.quarkus.vertx..",
                        "io.quarkus.resteasy..", "io.smallrye.mutiny..", "dev.slidegate.entry..", "dev.slidegate.http..",
                        "dev.slidegate.admin..")
                .because("nothing below the entry points sees a Vert.x or JAX-RS type (issue 57)").check(SLIDEGATE);
    }

    // the public API is what a service's code compiles against: Java, Slidegate's own types and the annotations CDI binds
    @Test
    void thePublicApiHoldsNoFrameworkType() {
        classes().that().resideInAPackage("dev.slidegate.api..").should().onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "dev.slidegate.api..", "jakarta.interceptor..", "jakarta.enterprise.util..")
                .because("a resolver sees a RequestView of Slidegate's own, not the HTTP layer's request (issue 57)")
                .check(SLIDEGATE);
    }

    // packages depend on each other in one direction: no cycle between them
    @Test
    void packagesHaveNoCycles() {
        com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices().matching("dev.slidegate.(*)..").should()
                .beFreeOfCycles().because("docs/architecture.md draws the layers in one direction (issue 57)")
                .check(SLIDEGATE);
    }

    /**
     * The libraries a service may leave out (optional in Slidegate's pom): Redis, gRPC and Envoy's messages, YAML, the
     * REST client, health, metrics' Prometheus registry, OpenAPI, the properties-file users, JSON logs, Guava.
     */
    private static final List<String> OPTIONAL_LIBRARIES = List.of("io.quarkus.redis.", "io.vertx.redis.",
            "io.vertx.mutiny.redis.", "io.grpc.", "io.vertx.grpc.", "io.quarkus.grpc.", "com.google.protobuf.",
            "com.fasterxml.jackson.dataformat.yaml.", "org.jboss.resteasy.reactive.client.", "io.quarkus.rest.client.",
            "org.eclipse.microprofile.rest.client.", "org.eclipse.microprofile.health.", "io.smallrye.health.",
            "io.micrometer.prometheus", "org.eclipse.microprofile.openapi.", "io.smallrye.openapi.",
            "io.quarkus.elytron.", "org.wildfly.security.", "io.quarkus.logging.json.", "com.google.common.");

    /** What makes a class a bean in every service that has Slidegate, whatever its class path. */
    private static final List<String> ALWAYS_A_BEAN = List.of("jakarta.enterprise.context.", "jakarta.inject.Singleton",
            "jakarta.ws.rs.Path", "jakarta.ws.rs.ext.Provider", "io.quarkus.runtime.Startup", "jakarta.interceptor.",
            "jakarta.enterprise.inject.Produces", "jakarta.enterprise.event.Observes",
            "org.jboss.resteasy.reactive.server.Server", "io.quarkus.vertx.web.", "io.quarkus.arc.");

    /**
     * A service may leave out an optional library, and its native build analyses every method it can reach: one that
     * names a class of a missing library fails the build ("Discovered unresolved type during parsing"), though the JVM,
     * which links lazily, runs. So the classes that touch an optional library, and every class that reaches one of them
     * through a constructor, a static member or a reference to either, are beans only where {@code OptionalParts} or
     * {@code RlsParts} add them (no scope, producer, observer or REST annotation of their own), reached elsewhere through
     * an instance of such a bean alone. Health checks are beans only with {@code quarkus-smallrye-health}, which they need.
     */
    @Test
    void optionalLibrariesAreReachedOnlyThroughTheirOptionalBeans() {
        Set<JavaClass> reaching = new java.util.HashSet<>();
        for (JavaClass c : SHIPPED) {
            if (c.getDirectDependenciesFromSelf().stream().anyMatch(d -> optional(d.getTargetClass().getName()))) {
                reaching.add(c);
            }
        }
        for (boolean grew = true; grew;) { // the classes that reach them through code always analysed once it is reached
            grew = false;
            for (JavaClass c : SHIPPED) {
                if (!reaching.contains(c) && c.getAccessesFromSelf().stream()
                        .anyMatch(a -> reaching.contains(a.getTargetOwner()) && staticOrNew(a.getTarget()))) {
                    grew = reaching.add(c);
                }
            }
        }
        List<String> beans = reaching.stream().filter(c -> !c.getPackageName().startsWith("dev.slidegate.health"))
                .flatMap(c -> alwaysABean(c).stream()).sorted().toList();
        org.junit.jupiter.api.Assertions.assertEquals(List.of(), beans,
                "classes that reach an optional library but are beans in every service: a native build without it fails");
    }

    /** A scratch of the rule above: it must see the shape that broke native builds (an observer reaching gRPC). */
    @Test
    void theOptionalLibrariesRuleSeesAnObserverThatReachesOne() {
        JavaClass observer = new ClassFileImporter().importClass(ObserverReachingYaml.class);
        assertEquals(List.of(ObserverReachingYaml.class.getName() + ": jakarta.enterprise.event.Observes"),
                alwaysABean(observer));
        assertTrue(observer.getDirectDependenciesFromSelf().stream().anyMatch(d -> optional(d.getTargetClass().getName())));
    }

    static class ObserverReachingYaml {
        void start(@jakarta.enterprise.event.Observes io.quarkus.runtime.StartupEvent e) {
            new com.fasterxml.jackson.dataformat.yaml.YAMLMapper();
        }
    }

    private static boolean optional(String className) {
        return OPTIONAL_LIBRARIES.stream().anyMatch(className::startsWith);
    }

    private static boolean staticOrNew(AccessTarget t) {
        if (t instanceof AccessTarget.ConstructorCallTarget || t instanceof AccessTarget.ConstructorReferenceTarget) {
            return true;
        }
        return t.resolveMember().map(m -> m.getModifiers().contains(JavaModifier.STATIC)).orElse(false);
    }

    /** Why {@code c} is a bean in every service: the annotations on it, its members and their parameters. */
    private static List<String> alwaysABean(JavaClass c) {
        List<String> why = new ArrayList<>();
        c.getAnnotations().forEach(a -> note(why, c, a.getRawType().getName()));
        c.getMembers().forEach(m -> m.getAnnotations().forEach(a -> note(why, c, a.getRawType().getName())));
        c.getMethods().forEach(m -> m.getParameters().forEach(
                p -> p.getAnnotations().forEach(a -> note(why, c, a.getRawType().getName()))));
        return why.stream().distinct().toList();
    }

    private static void note(List<String> why, JavaClass c, String annotation) {
        if (ALWAYS_A_BEAN.stream().anyMatch(annotation::startsWith)) {
            why.add(c.getName() + ": " + annotation);
        }
    }
}
