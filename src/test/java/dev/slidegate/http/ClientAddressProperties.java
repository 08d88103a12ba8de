package dev.slidegate.http;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.slidegate.testing.TestConfigs;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of the client address, over random peers and random forwarding header lines (any
 * characters, with the separators and quoting of both headers over-represented): no input makes it
 * fail, a caller who is not a trusted proxy is always itself, and nothing a client writes left of its
 * proxy's entry, or in the header its proxy does not write, changes who it is.
 */
class ClientAddressProperties {

    private static ClientAddress resolver(String... settings) {
        Map<String, String> props = new HashMap<>(Map.of("slidegate.http.trusted-proxies", "10.0.0.0/8,2001:db8:ffff::/48"));
        for (int i = 0; i < settings.length; i += 2) {
            props.put(settings[i], settings[i + 1]);
        }
        return new ClientAddress(TestConfigs.slidegate(props), TestConfigs.config(props));
    }

    private static final ClientAddress XFF = resolver();
    private static final ClientAddress RFC7239 = resolver("slidegate.http.forwarded-header", "forwarded");
    private static final ClientAddress HOPS = resolver("slidegate.http.trusted-hops", "2");

    @Provide
    Arbitrary<String> peers() {
        return Arbitraries.of("10.0.0.1", "10.200.3.4", "2001:db8:ffff::7", "::ffff:10.0.0.9", "203.0.113.9",
                "198.51.100.1", "2001:db8:1:2::3", "::1", "0.0.0.0");
    }

    /** Addresses as a client or proxy writes them, in every spelling. */
    @Provide
    Arbitrary<String> addresses() {
        Arbitrary<String> v4 = Arbitraries.integers().between(0, 255).list().ofSize(4)
                .map(b -> b.get(0) + "." + b.get(1) + "." + b.get(2) + "." + b.get(3));
        Arbitrary<String> v6 = Arbitraries.integers().between(0, 0xffff).list().ofSize(8)
                .map(g -> String.join(":", g.stream().map(Integer::toHexString).toList()));
        Arbitrary<String> port = Arbitraries.integers().between(1, 65535).map(p -> ":" + p);
        return Arbitraries.oneOf(v4, v4.flatMap(a -> port.map(p -> a + p)), v6,
                v6.flatMap(a -> port.map(p -> "[" + a + "]" + p)), v4.map(a -> "::ffff:" + a));
    }

    /** Anything at all, separators and quotes over-represented. */
    @Provide
    Arbitrary<String> junk() {
        Arbitrary<String> any = Arbitraries.strings().ofMaxLength(40);
        Arbitrary<String> syntax = Arbitraries.strings().withChars(",;=\"[]:. _-forFOR0123456789abcdef%\t").ofMaxLength(40);
        return Arbitraries.oneOf(any, syntax, addresses(), addresses().map(a -> "for=\"" + a + "\""));
    }

    @Provide
    Arbitrary<List<String>> lines() {
        return junk().list().ofMaxSize(4).flatMap(entries -> Arbitraries.integers().between(1, 3)
                .map(n -> n == 1 || entries.isEmpty() ? List.of(String.join(", ", entries)) : entries));
    }

    @Property(tries = 500)
    void noInputFailsAndTheAnswerIsAnAddress(@ForAll("peers") String peer, @ForAll("lines") List<String> forwarded,
            @ForAll("lines") List<String> xForwardedFor) {
        for (ClientAddress r : new ClientAddress[] { XFF, RFC7239, HOPS }) {
            String client = r.resolve(peer, forwarded, xForwardedFor);
            String address = client.endsWith("/64") ? client.substring(0, client.length() - 3) : client;
            if (IpAddresses.parse(address) == null) {
                throw new AssertionError("not an address: " + client);
            }
        }
    }

    @Property(tries = 300)
    void aCallerThatIsNoTrustedProxyIsItself(@ForAll("lines") List<String> forwarded, @ForAll("lines") List<String> xff,
            @ForAll @IntRange(min = 1, max = 254) int last) {
        String peer = "203.0.113." + last;
        for (ClientAddress r : new ClientAddress[] { XFF, RFC7239, HOPS }) {
            assertEquals(peer, r.resolve(peer, forwarded, xff));
        }
    }

    @Property(tries = 500)
    void whatTheClientWritesLeftOfItsProxysEntryChangesNothing(@ForAll("junk") String left,
            @ForAll @IntRange(min = 1, max = 254) int last) {
        String client = "198.51.100." + last;
        assertEquals(client, XFF.resolve("10.0.0.1", List.of(), List.of(left + ", " + client)));
        assertEquals(client, XFF.resolve("10.0.0.1", List.of(), List.of(left, client)));
        assertEquals(client, RFC7239.resolve("10.0.0.1", List.of(left + ", for=" + client), List.of()));
        assertEquals(client, HOPS.resolve("10.0.0.1", List.of(), List.of(left + ", " + client + ", 192.0.2.1")));
    }

    @Property(tries = 300)
    void theHeaderTheProxyDoesNotWriteChangesNothing(@ForAll("lines") List<String> other,
            @ForAll @IntRange(min = 1, max = 254) int last) {
        String client = "198.51.100." + last;
        assertEquals(client, XFF.resolve("10.0.0.1", other, List.of(client)));
        assertEquals(client, RFC7239.resolve("10.0.0.1", List.of("for=" + client), other));
    }

    @Property(tries = 200)
    void hopsAreCountedNotParsed(@ForAll("junk") String hop, @ForAll @IntRange(min = 1, max = 254) int last) {
        if (hop.contains(",")) {
            return; // one entry per hop: a comma would make it two
        }
        String client = "198.51.100." + last;
        assertEquals(client, HOPS.resolve("10.0.0.1", List.of(), List.of(client + "," + hop)));
    }

    private static void assertEquals(String expected, String actual) {
        if (!expected.equals(actual)) {
            throw new AssertionError("expected " + expected + " but was " + actual);
        }
    }
}
