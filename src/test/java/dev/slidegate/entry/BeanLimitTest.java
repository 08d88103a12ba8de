package dev.slidegate.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletionException;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.RateLimited;
import dev.slidegate.http.SmallLimits;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@code @RateLimited} on plain CDI beans called outside HTTP: a refusal is a {@link RateLimitExceededException} carrying the
 * decision.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class BeanLimitTest {

    @Inject
    LimitedService service;
    @Inject
    ClassLimitedService classLimited;

    @Test
    void plainMethodsThrowWithTheDecision() {
        assertEquals("pong", service.ping());
        assertEquals("pong", service.ping());
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class, service::ping);
        Decision d = e.decision();
        assertFalse(d.allowed());
        assertEquals("bean-global", d.policy().name());
        assertEquals("2/1h", d.trippedLimit().orElseThrow().toString());
        assertTrue(d.retryAfterSeconds() > 3500 && d.retryAfterSeconds() <= 3600, "retry " + d.retryAfterSeconds());
        assertTrue(e.getMessage().contains("policy 'bean-global'"), e.getMessage());
    }

    @Test
    void rateLimitKeyParametersKeyTheCaller() {
        service.send("acme", "1");
        service.send("acme", "2");
        assertThrows(RateLimitExceededException.class, () -> service.send("acme", "3"));
        assertEquals("globex:1", service.send("globex", "1"));
        // a null key is a missing key (400 over HTTP), never a shared "null" bucket
        MissingRateLimitKeyException e = assertThrows(MissingRateLimitKeyException.class, () -> service.send(null, "x"));
        assertTrue(e.getMessage().contains("it is null"), e.getMessage());
    }

    @Test
    void completionStageMethodsFailTheirStage() {
        assertEquals("done", service.async().toCompletableFuture().join());
        CompletionException e = assertThrows(CompletionException.class, () -> service.async().toCompletableFuture().join());
        assertTrue(e.getCause() instanceof RateLimitExceededException, e.toString());
    }

    @Test
    void uniMethodsFailTheirUniAndDecideOnlyWhenSubscribed() {
        var first = service.uni();
        var second = service.uni(); // not subscribed yet: nothing decided
        assertEquals("done", second.await().indefinitely());
        assertThrows(RateLimitExceededException.class, () -> first.await().indefinitely());
    }

    @Test
    void repeatedAnnotationsAllApplyEachItsOwnPolicy() {
        assertEquals("twice", service.twice());
        assertEquals("twice", service.twice());
        assertEquals("bean-rep-b", assertThrows(RateLimitExceededException.class, service::twice).decision().policy().name());

        assertEquals("twice", service.twiceUni().await().indefinitely());
        assertEquals("twice", service.twiceUni().await().indefinitely());
        assertEquals("bean-rep-uni-a",
                assertThrows(RateLimitExceededException.class, () -> service.twiceUni().await().indefinitely()).decision()
                        .policy().name());

        assertEquals("twice", service.twiceStage().toCompletableFuture().join());
        CompletionException e = assertThrows(CompletionException.class,
                () -> service.twiceStage().toCompletableFuture().join());
        assertEquals("bean-rep-stage-b", ((RateLimitExceededException) e.getCause()).decision().policy().name());
    }

    @Test
    void anAddressKeyOutsideARequestIsAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, service::needsARequest);
        assertTrue(
                e.getMessage().contains(
                        "LimitedService#needsARequest: policy 'bean-ip' keys callers by ip, which needs an HTTP request"),
                e.getMessage());
    }

    @Test
    void aClassLevelBindingCoversEveryMethodAndAMethodLevelOneReplacesIt() {
        assertEquals("a", classLimited.a());
        assertEquals("b", classLimited.b());
        assertThrows(RateLimitExceededException.class, classLimited::a);
        assertEquals("own", classLimited.own());
        assertThrows(RateLimitExceededException.class, classLimited::own);
    }

    @Inject
    RateLimitedSites.Sites sites;

    // what the build found (the extension run by ArC while building), which start-up checks without
    // reflection: every annotation of every bean, repeated ones each, class-level ones on each business method
    @Test
    void theBuildFindsEveryRateLimitedMethod() {
        java.util.Map<String, java.util.List<RateLimitedSites.Sites.Site>> byMethod = sites.all().stream()
                .collect(java.util.stream.Collectors.groupingBy(RateLimitedSites.Sites.Site::where));
        RateLimitedSites.Sites.Site ping = byMethod.get("LimitedService#ping").get(0);
        assertEquals("bean-global", ping.value());
        assertEquals(java.util.List.of("2/1h"), ping.limits());
        assertEquals("global", ping.key());
        assertEquals(1, byMethod.get("LimitedService#send").get(0).keyParameters());
        assertEquals(java.util.List.of("bean-rep-a", "bean-rep-b"),
                byMethod.get("LimitedService#twice").stream().map(RateLimitedSites.Sites.Site::value).toList());
        assertEquals("bean-class", byMethod.get("ClassLimitedService#a").get(0).value());
        assertEquals("bean-class-own", byMethod.get("ClassLimitedService#own").get(0).value());
        assertEquals(1, byMethod.get("ClassLimitedService#own").size());
        assertEquals("reports", byMethod.get("ReportResource#list").get(0).value());
        assertTrue(byMethod.get("LimitedService#twiceUni").get(0).returnType().startsWith("io.smallrye.mutiny.Uni"),
                byMethod.get("LimitedService#twiceUni").get(0).returnType());
    }
}
