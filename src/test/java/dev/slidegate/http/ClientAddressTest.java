package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.TestConfigs;
import io.quarkus.runtime.configuration.ConfigurationException;

/** Client addresses: trusted proxies, forwarding chains read from the right, IPv6 grouping, normalisation. */
class ClientAddressTest {

    private static ClientAddress resolver(String trusted) {
        Map<String, String> props = new HashMap<>();
        if (trusted != null) {
            props.put("slidegate.http.trusted-proxies", trusted);
        }
        return new ClientAddress(TestConfigs.slidegate(props));
    }

    private static String xff(ClientAddress r, String peer, String... lines) {
        return r.resolve(peer, List.of(), List.of(lines));
    }

    @Test
    void withoutTrustedProxiesForwardingHeadersAreIgnored() {
        ClientAddress r = resolver(null);
        assertEquals("198.51.100.9", xff(r, "198.51.100.9", "203.0.113.1"));
        assertEquals("198.51.100.9", xff(r, "198.51.100.9", "203.0.113.2, 10.0.0.1"));
        assertEquals("198.51.100.9", r.resolve("198.51.100.9", List.of("for=203.0.113.3"), List.of()));
    }

    @Test
    void throughATrustedProxyTheRightmostUntrustedAddressIsTheClient() {
        ClientAddress r = resolver("10.0.0.0/8");
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "203.0.113.5"));
        // the client wrote the leftmost entry; it changes nothing
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "1.2.3.4, 203.0.113.5"));
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "6.6.6.6, 203.0.113.5"));
        // trusted hops are skipped, right to left, also across header lines
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "9.9.9.9, 203.0.113.5", "10.1.1.1, 10.2.2.2"));
        // every hop trusted: the first of them
        assertEquals("10.9.9.9", xff(r, "10.0.0.1", "10.9.9.9, 10.2.2.2"));
        // no header at all: the proxy itself
        assertEquals("10.0.0.1", xff(r, "10.0.0.1"));
    }

    @Test
    void malformedEntriesFallBackToThePeer() {
        ClientAddress r = resolver("10.0.0.0/8");
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "garbage"));
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "203.0.113.5, "));
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "example.com")); // never looked up
        assertEquals("10.0.0.1", r.resolve("10.0.0.1", List.of("for=unknown"), List.of()));
        assertEquals("10.0.0.1", r.resolve("10.0.0.1", List.of("for=_hidden, for=10.0.0.7"), List.of()));
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "\u00ff\u00fe\u0000"));
    }

    @Test
    void onlyTheTailOfAHugeHeaderIsRead() {
        ClientAddress r = resolver("10.0.0.0/8");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            sb.append("198.51.100.").append(i % 250).append(", ");
        }
        sb.append("203.0.113.77");
        assertEquals("203.0.113.77", xff(r, "10.0.0.1", sb.toString()));
        // 10 000 trusted hops: more than MAX_HOPS, so nothing is believed
        String allTrusted = String.join(", ", java.util.Collections.nCopies(10_000, "10.3.3.3"));
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", allTrusted));
    }

    @Test
    void forwardedIsPreferredAndParsedWithQuotesPortsAndIpv6() {
        ClientAddress r = resolver("10.0.0.0/8, 2001:db8:ffff::/48");
        assertEquals("203.0.113.43", r.resolve("10.0.0.1", List.of("for=203.0.113.43;proto=https"), List.of("6.6.6.6")));
        assertEquals("2001:db8:cafe::/64",
                r.resolve("10.0.0.1", List.of("for=1.1.1.1, for=\"[2001:db8:cafe::17]:4711\";by=10.0.0.1"), List.of()));
        assertEquals("192.0.2.60", r.resolve("2001:db8:ffff::1", List.of("For=\"192.0.2.60:8080\""), List.of()));
    }

    @Test
    void ipv6IsGroupedByPrefixAndEverySpellingIsOneAddress() {
        ClientAddress r = resolver(null);
        Random random = new Random(7);
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String host = String.format("2001:db8:1:2:%x:%x:%x:%x", random.nextInt(65536), random.nextInt(65536),
                    random.nextInt(65536),
                    random.nextInt(65536));
            keys.add(xff(r, host));
        }
        assertEquals(Set.of("2001:db8:1:2::/64"), keys, "1000 addresses of one /64 are one caller");
        assertEquals("2001:db8:1:3::/64", xff(r, "2001:db8:1:3::1"));
        assertEquals(xff(r, "2001:DB8:0:0:1::1"), xff(r, "2001:db8::1:0:0:1"));
        assertEquals("203.0.113.9", xff(r, "::ffff:203.0.113.9"), "IPv4-mapped IPv6 is the IPv4 address");
        assertEquals("203.0.113.9", xff(r, "0:0:0:0:0:ffff:cb00:7109"));
    }

    @Test
    void theIpv6PrefixIsConfigurable() {
        ClientAddress r = new ClientAddress(TestConfigs.slidegate(Map.of("slidegate.http.ipv6-prefix", "56")));
        assertEquals("2001:db8:1:200::/56", xff(r, "2001:db8:1:2ff:1::1"));
        ClientAddress exact = new ClientAddress(TestConfigs.slidegate(Map.of("slidegate.http.ipv6-prefix", "128")));
        assertEquals("2001:db8::1", xff(exact, "2001:db8:0::1"));
    }

    @Test
    void invalidSettingsStopStartUpNamingTheProperty() {
        String m = assertThrows(ConfigurationException.class, () -> resolver("10.0.0.0/33")).getMessage();
        assertEquals(
                "Invalid Slidegate configuration: slidegate.http.trusted-proxies: '10.0.0.0/33' is not an address or CIDR: "
                        + "expected e.g. 10.0.0.0/8, 192.168.1.7 or 2001:db8::/32",
                m);
        assertTrue(assertThrows(ConfigurationException.class, () -> resolver("proxy.internal")).getMessage()
                .contains("'proxy.internal'"));
        assertTrue(assertThrows(ConfigurationException.class,
                () -> new ClientAddress(TestConfigs.slidegate(Map.of("slidegate.http.ipv6-prefix", "0")))).getMessage()
                .contains("slidegate.http.ipv6-prefix: '0' is not a prefix length"));
    }
}
