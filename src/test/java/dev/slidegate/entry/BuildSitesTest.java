package dev.slidegate.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.RateLimited;
import dev.slidegate.http.SmallLimits;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * What the build-time binder found reaches the running service whole: each {@code @RateLimited} as the annotation
 * itself (ArC recreates it), with what only the build saw of its method.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class BuildSitesTest {

    @Inject
    RateLimitedSites.Sites sites;

    private RateLimitedSites.Sites.Site site(String where) {
        return sites.all().stream().filter(s -> s.where().equals(where)).findFirst()
                .orElseThrow(() -> new AssertionError(where + " not among " + sites.all().size() + " sites"));
    }

    @Test
    void everyMemberAndTheMethodArrive() {
        RateLimitedSites.Sites.Site send = site("LimitedService#send");
        assertEquals("bean-tenant", send.value());
        assertEquals(List.of("2/1h"), send.limits());
        assertEquals(1, send.keyParameters());
        assertEquals(RateLimited.Toggle.UNSET, send.countRejected());
        assertEquals("java.lang.String", send.returnType());
        assertEquals("dev.slidegate.entry.LimitedService#send(java.lang.String,java.lang.String)", send.signature());
        RateLimitedSites.Sites.Site uni = site("LimitedService#uni");
        assertEquals("global", uni.key());
        assertTrue(uni.returnType().startsWith("io.smallrye.mutiny.Uni"), uni.returnType());
        assertTrue(sites.all().stream().anyMatch(s -> s.where().equals("ReportResource#list")), "the demo's endpoints too");
    }
}
