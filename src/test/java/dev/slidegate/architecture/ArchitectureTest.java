package dev.slidegate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import java.util.Set;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
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
}
