package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.config.StoreStack;
import dev.slidegate.testing.RedisTestResource;
import dev.slidegate.testing.Resp;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The demo API on the Redis store, against a real redis-server. The reactive endpoint runs on the
 * event loop here while the decision waits for Redis: it must not block ("The current thread cannot
 * be blocked" would be a 500).
 */
@QuarkusTest
@TestProfile(SharedProfiles.OnRedis.class)
class RedisDemoApiTest extends DemoApiContract {

    @Inject
    StoreStack stack;

    @BeforeEach
    void flush() {
        RedisTestResource.flushAll(stack);
    }

    @Test
    void autoChoosesRedisWhenHostsAreSetAndWindowsLiveThere() {
        assertEquals("redis", stack.decisions().name());
        given().get("/api/products/reactive").then().statusCode(200);
        try (Resp r = RedisTestResource.server().connect()) {
            assertEquals(1L, r.number("ZCOUNT", "slidegate:{products:ip:127.0.0.1}:log", "(0", "+inf"));
        }
    }

    // issue 61: one address calling fast is a hot key: its calls are admitted from permits taken ahead, by default
    @Test
    void aHotAddressIsAdmittedFromPermitsTakenAheadUnlessItsPolicySaysNo() {
        long taken = stack.takenAhead();
        for (int i = 0; i < 60; i++) {
            given().get("/test/plain/both/" + i).then().statusCode(200);
        }
        assertEquals(taken, stack.takenAhead(), "take-ahead=false: every call a script call");
        // a burst, as a hot caller sends them: hot by its rate on a busy machine too
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        List<java.util.concurrent.CompletableFuture<Integer>> burst = new java.util.ArrayList<>();
        for (int i = 0; i < 60; i++) {
            java.net.URI uri = java.net.URI.create(io.restassured.RestAssured.baseURI + ":" + io.restassured.RestAssured.port
                    + "/test/plain/files/a/" + i);
            burst.add(client.sendAsync(java.net.http.HttpRequest.newBuilder(uri).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).thenApply(java.net.http.HttpResponse::statusCode));
        }
        burst.forEach(f -> assertEquals(200, f.join()));
        org.junit.jupiter.api.Assertions.assertTrue(stack.takenAhead() > taken && stack.usedAhead() > 0,
                "taken " + stack.takenAhead() + ", used " + stack.usedAhead());
        try (Resp r = RedisTestResource.server().connect()) {
            assertEquals(60L, r.number("ZCOUNT", "slidegate:{hot-off:ip:127.0.0.1}:log", "(0", "+inf"));
            long counted = r.number("ZCOUNT", "slidegate:{hot:ip:127.0.0.1}:log", "(0", "+inf");
            org.junit.jupiter.api.Assertions.assertTrue(counted >= 60,
                    "Redis counts every admitted call, and what was taken and not yet used: " + counted);
        }
    }

    // the path limiter waits for Redis without blocking the event loop
    @Test
    void policiesAttachedByPathAreDecidedOnRedis() {
        given().get("/test/plain/1").then().statusCode(200).header("RateLimit", "\"plain-get-1h\";r=1;t=3600");
        given().get("/test/plain/2").then().statusCode(200);
        given().get("/test/plain/3").then().statusCode(429).contentType("application/problem+json");
        try (Resp r = RedisTestResource.server().connect()) {
            assertEquals(2L, r.number("ZCOUNT", "slidegate:{plain-get:ip:127.0.0.1}:log", "(0", "+inf"));
        }
    }

    @Test
    void manyConcurrentReactiveCallsAreDecidedWithoutBlocking() throws Exception {
        List<java.util.concurrent.CompletableFuture<Integer>> calls = new java.util.ArrayList<>();
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        java.net.URI uri = java.net.URI.create(io.restassured.RestAssured.baseURI + ":" + io.restassured.RestAssured.port
                + "/api/products/reactive");
        for (int i = 0; i < 20; i++) {
            calls.add(client.sendAsync(java.net.http.HttpRequest.newBuilder(uri).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).thenApply(java.net.http.HttpResponse::statusCode));
        }
        long ok = calls.stream().map(java.util.concurrent.CompletableFuture::join).filter(s -> s == 200).count();
        long refused = calls.stream().map(java.util.concurrent.CompletableFuture::join).filter(s -> s == 429).count();
        assertEquals(3, ok);
        assertEquals(17, refused);
    }
}
