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

    private static ClientAddress resolver(String trusted, String... more) {
        Map<String, String> props = new HashMap<>();
        if (trusted != null) {
            props.put("slidegate.http.trusted-proxies", trusted);
        }
        for (int i = 0; i < more.length; i += 2) {
            props.put(more[i], more[i + 1]);
        }
        return of(props);
    }

    private static ClientAddress of(Map<String, String> props) {
        return new ClientAddress(TestConfigs.slidegate(props), TestConfigs.config(props));
    }

    private static String message(Map<String, String> props) {
        return assertThrows(ConfigurationException.class, () -> of(props)).getMessage();
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
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "\u00ff\u00fe\u0000"));
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "203.0.113.5,,10.0.0.2"), "an empty entry");
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "[2001:db8::1"), "an unclosed bracket");
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "203.0.113.500"));
        ClientAddress rfc = resolver("10.0.0.0/8", "slidegate.http.forwarded-header", "forwarded");
        assertEquals("10.0.0.1", rfc.resolve("10.0.0.1", List.of("for=unknown"), List.of()));
        assertEquals("10.0.0.1", rfc.resolve("10.0.0.1", List.of("for=_hidden, for=10.0.0.7"), List.of()),
                "an obfuscated node left of a trusted hop");
        assertEquals("10.0.0.1", rfc.resolve("10.0.0.1", List.of("proto=https"), List.of()), "an element without for");
        assertEquals("10.0.0.1", rfc.resolve("10.0.0.1", List.of("for=\"[2001:db8::1\""), List.of()));
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
    void onlyTheConfiguredHeaderIsReadWhateverTheOtherSays() {
        // the proxy appends X-Forwarded-For; the client wrote Forwarded itself (issue 20, attack 1)
        ClientAddress x = resolver("10.0.0.0/8");
        for (int i = 0; i < 10; i++) {
            assertEquals("203.0.113.5", x.resolve("10.0.0.1", List.of("for=198.51.100." + i), List.of("203.0.113.5")));
        }
        assertEquals("10.0.0.1", x.resolve("10.0.0.1", List.of("for=198.51.100.1"), List.of()), "Forwarded alone: the peer");
        // the proxy writes Forwarded: X-Forwarded-For is the client's
        ClientAddress f = resolver("10.0.0.0/8", "slidegate.http.forwarded-header", "Forwarded");
        assertEquals("203.0.113.43", f.resolve("10.0.0.1", List.of("for=203.0.113.43;proto=https"), List.of("6.6.6.6")));
        assertEquals("10.0.0.1", f.resolve("10.0.0.1", List.of(), List.of("6.6.6.6")));
    }

    @Test
    void forwardedIsParsedWithQuotesPortsAndIpv6() {
        ClientAddress r = resolver("10.0.0.0/8, 2001:db8:ffff::/48", "slidegate.http.forwarded-header", "forwarded");
        assertEquals("2001:db8:cafe::/64",
                r.resolve("10.0.0.1", List.of("for=1.1.1.1, for=\"[2001:db8:cafe::17]:4711\";by=10.0.0.1"), List.of()));
        assertEquals("192.0.2.60", r.resolve("2001:db8:ffff::1", List.of("For=\"192.0.2.60:8080\""), List.of()));
        assertEquals("192.0.2.61", r.resolve("10.0.0.1", List.of("by=10.0.0.1; for=192.0.2.61 ;proto=http"), List.of()));
        assertEquals("192.0.2.62", r.resolve("10.0.0.1", List.of("for=192.0.2.62", "for=10.0.0.9"), List.of()),
                "two header lines, the trusted hop skipped");
        ClientAddress xff = resolver("10.0.0.0/8");
        assertEquals("192.0.2.63", xff(xff, "10.0.0.1", "192.0.2.63:51234"), "an IPv4 address with a port");
        assertEquals("2001:db8:1:2::/64", xff(xff, "10.0.0.1", "[2001:db8:1:2::9]:443"), "an IPv6 address with a port");
        assertEquals("2001:db8:1:2::/64", xff(xff, "10.0.0.1", " 2001:db8:1:2::9 "), "a bare IPv6 address");
        assertEquals("2001:db8:1:2::/64", xff(xff, "::ffff:10.0.0.1", "2001:db8:1:2::9"), "a mapped peer is trusted too");
    }

    @Test
    void trustedHopsTakeTheEntryThatManyFromTheRight() {
        // a CDN then a load balancer, each appending: the client is the second entry from the right,
        // whatever the addresses of the hops (a CDN's are many and change)
        ClientAddress r = resolver("10.0.0.0/8", "slidegate.http.trusted-hops", "2");
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "203.0.113.5, 198.51.100.20"));
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "6.6.6.6, 7.7.7.7, 203.0.113.5, 198.51.100.20"),
                "what the client wrote on the left changes nothing");
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "203.0.113.5", "198.51.100.20"), "across header lines");
        assertEquals("203.0.113.5", xff(r, "10.0.0.1", "203.0.113.5, proxy-obfuscated-name"),
                "a hop's entry is counted, not parsed");
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "198.51.100.20"), "fewer entries than hops: the peer");
        assertEquals("10.0.0.1", xff(r, "10.0.0.1", "garbage, 198.51.100.20"), "the client's entry malformed: the peer");
        assertEquals("10.0.0.1", xff(r, "10.0.0.1"));
        assertEquals("198.51.100.9", xff(r, "198.51.100.9", "203.0.113.5, 198.51.100.20"), "an untrusted peer is the client");
        ClientAddress one = resolver("10.0.0.0/8", "slidegate.http.trusted-hops", "1", "slidegate.http.forwarded-header",
                "forwarded");
        assertEquals("10.9.9.9", one.resolve("10.0.0.1", List.of("for=6.6.6.6, for=10.9.9.9"), List.of()),
                "one hop: the rightmost, even when its address is a trusted one");
    }

    @Test
    void quarkusProxySettingsAreUsedWhenSlidegateHasNone() {
        Map<String, String> q = new HashMap<>(Map.of("quarkus.http.proxy.proxy-address-forwarding", "true",
                "quarkus.http.proxy.trusted-proxies", "10.0.0.0/8,192.168.0.7"));
        ClientAddress r = of(q);
        assertEquals("203.0.113.5", xff(r, "192.168.0.7", "6.6.6.6, 203.0.113.5"), "right to left, not Quarkus' leftmost");
        assertEquals("203.0.113.5", r.resolve("10.0.0.1", List.of("for=6.6.6.6"), List.of("203.0.113.5")));
        assertTrue(r.description().startsWith("X-Forwarded-For from the proxies in quarkus.http.proxy.trusted-proxies"),
                r.description());
        // Quarkus reading Forwarded only, or preferring it
        q.put("quarkus.http.proxy.allow-forwarded", "true");
        assertEquals("203.0.113.6", of(q).resolve("10.0.0.1", List.of("for=203.0.113.6"), List.of("6.6.6.6")));
        q.put("quarkus.http.proxy.allow-x-forwarded", "true");
        assertEquals("203.0.113.6", of(q).resolve("10.0.0.1", List.of("for=203.0.113.6"), List.of("6.6.6.6")));
        q.put("quarkus.http.proxy.forwarded-precedence", "x-forwarded");
        assertEquals("6.6.6.6", of(q).resolve("10.0.0.1", List.of("for=203.0.113.6"), List.of("6.6.6.6")));
        q.put("slidegate.http.forwarded-header", "forwarded");
        assertEquals("203.0.113.6", of(q).resolve("10.0.0.1", List.of("for=203.0.113.6"), List.of("6.6.6.6")),
                "Slidegate's own header setting wins");
        // Slidegate's own proxies win over Quarkus'
        Map<String, String> own = Map.of("quarkus.http.proxy.proxy-address-forwarding", "true",
                "quarkus.http.proxy.trusted-proxies", "10.0.0.0/8", "slidegate.http.trusted-proxies", "192.168.0.0/16");
        assertEquals("10.0.0.1", xff(of(own), "10.0.0.1", "203.0.113.5"));
        assertEquals("203.0.113.5", xff(of(own), "192.168.0.1", "203.0.113.5"));
        // a host name is looked up once, at start-up
        ClientAddress local = of(Map.of("quarkus.http.proxy.proxy-address-forwarding", "true",
                "quarkus.http.proxy.trusted-proxies", "localhost"));
        assertEquals("203.0.113.5", xff(local, "127.0.0.1", "203.0.113.5"));
        // Quarkus' forwarding off: its trusted proxies mean nothing
        ClientAddress off = of(Map.of("quarkus.http.proxy.trusted-proxies", "10.0.0.0/8"));
        assertEquals("10.0.0.1", xff(off, "10.0.0.1", "203.0.113.5"));
        assertEquals("the TCP peer; forwarding headers are ignored", off.description());
    }

    @Test
    void quarkusTrustingEveryPeerNeedsTheExplicitSwitch() {
        Map<String, String> q = new HashMap<>(Map.of("quarkus.http.proxy.proxy-address-forwarding", "true"));
        assertEquals("Invalid Slidegate configuration: quarkus.http.proxy.proxy-address-forwarding is on and "
                + "quarkus.http.proxy.trusted-proxies is empty, so every peer could choose its own address for the rate "
                + "limits: list your proxies in quarkus.http.proxy.trusted-proxies, or set "
                + "slidegate.http.trust-every-address=true if every request really passes a proxy that writes the header",
                message(q));
        q.put("slidegate.http.trust-every-address", "true");
        assertEquals("203.0.113.5", xff(of(q), "198.51.100.1", "203.0.113.5"));
        assertEquals("2001:db8::/64", xff(of(q), "2001:db8:9::1", "2001:db8::5"));
        assertTrue(message(Map.of("quarkus.http.proxy.proxy-address-forwarding", "true", "quarkus.http.proxy.trusted-proxies",
                "10.0.0.1:8080")).contains("quarkus.http.proxy.trusted-proxies: '10.0.0.1:8080' names a port"));
        assertTrue(message(Map.of("quarkus.http.proxy.proxy-address-forwarding", "true", "quarkus.http.proxy.trusted-proxies",
                "no-such-host.invalid"))
                .contains("'no-such-host.invalid' is not an address, a CIDR or a host name that resolves"));
        assertTrue(message(Map.of("quarkus.http.proxy.proxy-address-forwarding", "true", "quarkus.http.proxy.trusted-proxies",
                "0.0.0.0/0")).contains("quarkus.http.proxy.trusted-proxies: '0.0.0.0/0' trusts every address"));
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
        ClientAddress r = of(Map.of("slidegate.http.ipv6-prefix", "56"));
        assertEquals("2001:db8:1:200::/56", xff(r, "2001:db8:1:2ff:1::1"));
        ClientAddress exact = of(Map.of("slidegate.http.ipv6-prefix", "128"));
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
        assertTrue(message(Map.of("slidegate.http.ipv6-prefix", "0"))
                .contains("slidegate.http.ipv6-prefix: '0' is not a prefix length"));
        assertEquals(
                "Invalid Slidegate configuration: slidegate.http.forwarded-header: 'x-real-ip' is not a forwarding header: "
                        + "expected x-forwarded-for or forwarded",
                message(Map.of("slidegate.http.forwarded-header", "x-real-ip")));
        assertTrue(message(Map.of("slidegate.http.trusted-proxies", "10.0.0.0/8", "slidegate.http.trusted-hops", "33"))
                .contains("slidegate.http.trusted-hops: '33' is out of range"));
        assertTrue(message(Map.of("slidegate.http.trusted-proxies", "10.0.0.0/8", "slidegate.http.trusted-hops", "-1"))
                .contains("slidegate.http.trusted-hops: '-1' is out of range"));
        assertTrue(message(Map.of("slidegate.http.trusted-hops", "1"))
                .contains("slidegate.http.trusted-hops: '1' counts proxies, but no proxy is trusted"));
    }
}
