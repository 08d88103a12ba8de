package dev.slidegate.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.Limit;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.config.KeySource;
import dev.slidegate.redis.RedisLayout;

/** Keys that need no HTTP request: parameters, resolvers, paths, composites; and their bounds. */
class CallerKeysTest {

    private final CallerKeys keys = new CallerKeys();
    private static final Policy LONG_NAME = new Policy("p".repeat(64), List.of(Limit.parse("1/366d"), Limit.parse("2/1s")),
            Strategy.FIXED_WINDOW, "x", false);

    private static MethodPolicy mp(KeySource key, int keyParameter, Map<String, KeyResolver> resolvers) {
        return new MethodPolicy(null, "C#m",
                new dev.slidegate.config.PolicyRegistry.Resolved(LONG_NAME.name(), LONG_NAME, key, Map.of(), 1, false,
                        dev.slidegate.core.Settlement.OFF),
                keyParameter, MethodPolicy.Kind.PLAIN, "/api/items/:id", resolvers, null, -1, null);
    }

    @Test
    void aResolverParameterAndPathMakeKeys() {
        assertEquals("arg:acme", keys.resolve(mp(new KeySource.Global(), 0, Map.of()), new Object[] { "acme" }, null));
        assertEquals("path:/api/items/:id", keys.resolve(mp(new KeySource.Path(), -1, Map.of()), new Object[0], null));
        KeyResolver tenant = call -> (String) call.arguments()[0];
        MethodPolicy composite = mp(KeySource.parse("tenant+path"), -1, Map.of("tenant", tenant));
        assertEquals("key:acme+path:/api/items/:id", keys.resolve(composite, new Object[] { "acme" }, null));
        assertThrows(MissingRateLimitKeyException.class, () -> keys.resolve(composite, new Object[] { " " }, null));
    }

    @Test
    void compositePartsCannotBeConfusedWithEachOther() {
        KeyResolver first = call -> (String) call.arguments()[0];
        KeyResolver second = call -> (String) call.arguments()[1];
        MethodPolicy composite = mp(KeySource.parse("a+b"), -1, Map.of("a", first, "b", second));
        // "x+key:y" as one value cannot pass for two parts: '+' is never kept, so it is hashed
        assertNotEquals(keys.resolve(composite, new Object[] { "x", "y" }, null),
                keys.resolve(composite, new Object[] { "x+key:y", "" + "z" }, null));
        assertEquals("key:x+key:y", keys.resolve(composite, new Object[] { "x", "y" }, null));
    }

    @Test
    void everyRedisKeyStaysWithin200BytesWithoutBraces() {
        KeyResolver huge = call -> "{" + "\u00e9".repeat(5000) + "}";
        MethodPolicy composite = mp(KeySource.parse("a+b+c+path"), -1, Map.of("a", huge, "b", huge, "c", huge));
        String key = keys.resolve(composite, new Object[0], null);
        assertTrue(key.length() <= dev.slidegate.core.KeyEncoder.MAX_KEY, key);
        String arg = keys.resolve(mp(new KeySource.Global(), 0, Map.of()), new Object[] { "y".repeat(100_000) }, null);
        for (String k : List.of(key, arg)) {
            for (String redisKey : RedisLayout.keys(LONG_NAME, k)) {
                assertTrue(redisKey.getBytes(StandardCharsets.UTF_8).length <= 200, redisKey.length() + ": " + redisKey);
                assertEquals(1, redisKey.chars().filter(c -> c == '{').count(), redisKey);
                assertEquals(1, redisKey.chars().filter(c -> c == '}').count(), redisKey);
            }
        }
    }

    /** A request as the engine sees it, with no server: the headers, query and caller a test gives. */
    private record Request(Map<String, String> headers, Map<String, String> query, String clientAddress, String user)
            implements
                Exchange {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/api/items/42";
        }

        @Override
        public String header(String name) {
            return headers.get(name);
        }

        @Override
        public String queryParam(String name) {
            return query.get(name);
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new IllegalArgumentException("no HTTP layer here");
        }

        @Override
        public boolean clientGone() {
            return false;
        }

        @Override
        public boolean answered() {
            return false;
        }

        @Override
        public void whenAnswered(java.util.function.Consumer<Boolean> then) {
            throw new IllegalStateException();
        }

        @Override
        public String answerHeader(String name) {
            return null;
        }

        @Override
        public dev.slidegate.api.Usage usage() {
            return new dev.slidegate.api.Usage();
        }

        @Override
        public dev.slidegate.api.Usage usageIfAny() {
            return null;
        }

        @Override
        public void partition(dev.slidegate.api.Decision decision, String key) {
        }

        @Override
        public int answerStatus() {
            return -1;
        }
    }

    // issue 57: keys are read from a request view of Slidegate's own, so every key source is decided without a server;
    // a resolver sees the same view
    @Test
    void everyKeySourceReadsTheRequestViewAlone() {
        Request r = new Request(Map.of("X-Tenant", "acme"), Map.of("region", "eu"), "203.0.113.7", "ada");
        Request anonymous = new Request(Map.of(), Map.of(), "2001:db8:1:2::/64", null);
        Object[] none = new Object[0];
        assertEquals("hdr:acme", keys.resolve(mp(KeySource.parse("header:X-Tenant"), -1, Map.of()), none, r));
        assertEquals("qp:eu", keys.resolve(mp(KeySource.parse("param:region"), -1, Map.of()), none, r));
        assertEquals("ip:203.0.113.7", keys.resolve(mp(KeySource.parse("ip"), -1, Map.of()), none, r));
        assertEquals("user:ada", keys.resolve(mp(KeySource.parse("user"), -1, Map.of()), none, r));
        assertEquals(keys.resolve(mp(KeySource.parse("ip"), -1, Map.of()), none, anonymous),
                keys.resolve(mp(KeySource.parse("user"), -1, Map.of()), none, anonymous), "anonymous callers count by ip");
        KeyResolver tenant = call -> call.request().header("X-Tenant") + "@" + call.request().clientAddress();
        assertEquals("key:acme@203.0.113.7",
                keys.resolve(mp(KeySource.parse("tenant"), -1, Map.of("tenant", tenant)), none, r));
        assertThrows(MissingRateLimitKeyException.class,
                () -> keys.resolve(mp(KeySource.parse("header:X-Tenant"), -1, Map.of()), none, anonymous));
    }
}
