package dev.slidegate.http;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.ByIdentity;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

/**
 * Who the client of a request is, for the {@code ip} key.
 *
 * <p>
 * The TCP peer, unless the peer is a trusted proxy. Then one forwarding header, the one the proxies
 * write ({@code X-Forwarded-For} by default, or {@code Forwarded}), is read from the right (several
 * header lines in order): either skipping trusted addresses, the first untrusted one being the client,
 * or, with {@code trusted-hops}, taking the entry that many from the right. Entries left of the client
 * were written by the client and are never believed, and neither is the other header. A malformed,
 * unknown or obfuscated entry, too few entries, or more than {@value #MAX_HOPS} hops, falls back to the
 * peer. Only the tail of a header is read, so a header of 10 000 entries costs no more than one of
 * {@value #MAX_HOPS}.
 *
 * <p>
 * The proxies are {@code slidegate.http.trusted-proxies}; when that is unset and Quarkus' own
 * {@code quarkus.http.proxy.proxy-address-forwarding} is on, Quarkus' proxy settings are used instead, so
 * they are said once. The address Quarkus resolves itself is not used: it is the leftmost entry, which
 * the client writes when its proxy appends.
 *
 * <p>
 * Addresses are normalised: IPv4-mapped IPv6 is IPv4, every spelling of an IPv6 address is one,
 * and IPv6 is grouped by {@code slidegate.http.ipv6-prefix} (default /64).
 */
@Singleton
public class ClientAddress {

    static final int MAX_HOPS = 32;
    /** Peers remembered: a few hundred open connections each find theirs with few collisions. */
    private static final int PEER_SLOTS = 1024;

    private static final Logger LOG = Logger.getLogger(ClientAddress.class);
    private static final String QUARKUS = "quarkus.http.proxy.";

    private final List<Cidr> trusted = new ArrayList<>();
    /**
     * The clients of connections' peers that are not trusted proxies, by the peer address object: one table for every
     * thread (requests of blocking endpoints are keyed on worker threads, which come and go), read far more than written.
     */
    private final ByIdentity<SocketAddress, String> peers = new ByIdentity<>(PEER_SLOTS, null);
    private final boolean rfc7239;
    private final int hops;
    private final int ipv6Prefix;
    /** How forwarding is read, for the start-up line and the tests. */
    private final String description;

    @Inject
    public ClientAddress(SlidegateConfig config) {
        this(config, ConfigProvider.getConfig());
    }

    /** With Quarkus' {@code quarkus.http.proxy.*} settings read from {@code all}. */
    public ClientAddress(SlidegateConfig config, Config all) {
        SlidegateConfig.HttpConfig http = config.http();
        boolean quarkusForwarding = all.getOptionalValue(QUARKUS + "proxy-address-forwarding", Boolean.class).orElse(false);
        String source;
        String header;
        if (http.trustedProxies().isPresent() || !quarkusForwarding) {
            source = "slidegate.http.trusted-proxies";
            for (String entry : http.trustedProxies().orElse(List.of())) {
                trusted.add(cidr(source, entry, http.trustEveryAddress()));
            }
            header = http.forwardedHeader().orElse("x-forwarded-for");
        } else {
            source = QUARKUS + "trusted-proxies";
            List<String> entries = all.getOptionalValues(source, String.class).orElse(List.of());
            if (entries.isEmpty()) {
                if (!http.trustEveryAddress()) {
                    throw fail(QUARKUS + "proxy-address-forwarding is on and " + source + " is empty, so every peer "
                            + "could choose its own address for the rate limits: list your proxies in " + source
                            + ", or set slidegate.http.trust-every-address=true if every request really passes a proxy "
                            + "that writes the header");
                }
                trusted.add(Cidr.parse("0.0.0.0/0"));
                trusted.add(Cidr.parse("::/0"));
            }
            for (String entry : entries) {
                for (String address : quarkusEntry(source, entry)) {
                    trusted.add(cidr(source, address, http.trustEveryAddress()));
                }
            }
            header = http.forwardedHeader().orElseGet(() -> quarkusHeader(all));
        }
        String h = header.trim().toLowerCase(java.util.Locale.ROOT);
        if (!h.equals("x-forwarded-for") && !h.equals("forwarded")) {
            throw fail("slidegate.http.forwarded-header: '" + header + "' is not a forwarding header: expected "
                    + "x-forwarded-for or forwarded");
        }
        rfc7239 = h.equals("forwarded");
        hops = http.trustedHops();
        if (hops < 0 || hops > MAX_HOPS) {
            throw fail("slidegate.http.trusted-hops: '" + hops + "' is out of range: expected 0 (trusted hops are known by "
                    + "address) to " + MAX_HOPS + ", e.g. 1 for one load balancer");
        }
        if (hops > 0 && trusted.isEmpty()) {
            throw fail("slidegate.http.trusted-hops: '" + hops + "' counts proxies, but no proxy is trusted, so no "
                    + "forwarding header is read: set slidegate.http.trusted-proxies to the address of the proxy nearest "
                    + "the service");
        }
        ipv6Prefix = http.ipv6Prefix();
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw fail("slidegate.http.ipv6-prefix: '" + ipv6Prefix + "' is not a prefix length: expected 1 to 128, e.g. 64");
        }
        String headerName = rfc7239 ? "Forwarded" : "X-Forwarded-For";
        description = trusted.isEmpty() ? "the TCP peer; forwarding headers are ignored"
                : headerName + " from the proxies in " + source + ", "
                        + (hops > 0 ? "the entry " + hops + " from the right" : "read right to left skipping trusted hops");
        if (!trusted.isEmpty()) {
            LOG.infof("Client addresses: %s", description);
        }
    }

    /** How the client's address is found, e.g. {@code X-Forwarded-For from the proxies in …}. */
    public String description() {
        return description;
    }

    private static Cidr cidr(String source, String entry, boolean trustEveryAddress) {
        Cidr c;
        try {
            c = Cidr.parse(entry);
        } catch (IllegalArgumentException e) {
            throw fail(source + ": " + e.getMessage());
        }
        if (c.prefix() == 0 && !trustEveryAddress) {
            throw fail(source + ": '" + entry.trim() + "' trusts every address, so every caller could choose its own "
                    + "through a forwarding header: list your proxies' addresses, or set slidegate.http.trust-every-address=true "
                    + "if every request really passes a proxy that writes the header");
        }
        return c;
    }

    /**
     * One entry of Quarkus' trusted proxies as addresses: an address or CIDR as is, a host name looked up
     * once, now. Quarkus also allows a port, which the client address cannot honour: refused.
     */
    private static List<String> quarkusEntry(String source, String entry) {
        String e = entry.trim();
        if (IpAddresses.parse(e.contains("/") ? e.substring(0, e.indexOf('/')) : e) != null) {
            boolean port = e.startsWith("[") ? e.contains("]:") : e.indexOf(':') > 0 && e.indexOf(':') == e.lastIndexOf(':');
            if (port) {
                throw fail(source + ": '" + e + "' names a port, which Slidegate cannot tell apart: set "
                        + "slidegate.http.trusted-proxies to the proxies' addresses");
            }
            return List.of(e);
        }
        if (e.contains("/") || e.contains(":") || e.isEmpty()) {
            return List.of(e); // refused by Cidr.parse with its own sentence
        }
        try {
            List<String> out = new ArrayList<>();
            for (java.net.InetAddress a : java.net.InetAddress.getAllByName(e)) {
                out.add(a.getHostAddress());
            }
            return out;
        } catch (java.net.UnknownHostException x) {
            throw fail(source + ": '" + e + "' is not an address, a CIDR or a host name that resolves: set "
                    + "slidegate.http.trusted-proxies to the proxies' addresses");
        }
    }

    /** The header Quarkus reads: Forwarded when only it is allowed or it takes precedence, else X-Forwarded-For. */
    private static String quarkusHeader(Config all) {
        boolean forwarded = all.getOptionalValue(QUARKUS + "allow-forwarded", Boolean.class).orElse(false);
        boolean xForwarded = all.getOptionalValue(QUARKUS + "allow-x-forwarded", Boolean.class).orElse(!forwarded);
        if (forwarded && xForwarded) {
            String precedence = all.getOptionalValue(QUARKUS + "forwarded-precedence", String.class).orElse("forwarded");
            return precedence.trim().replace('_', '-').equalsIgnoreCase("x-forwarded") ? "x-forwarded-for" : "forwarded";
        }
        return forwarded ? "forwarded" : "x-forwarded-for";
    }

    private static ConfigurationException fail(String message) {
        return new ConfigurationException("Invalid Slidegate configuration: " + message);
    }

    /**
     * The client of {@code rc}, normalised, e.g. {@code 203.0.113.7} or {@code 2001:db8:1:2::/64}. A peer that is
     * not a trusted proxy is the client whatever its requests say, and every request of a connection comes from
     * the same peer (the connection keeps its address object): so such peers are remembered with their clients (by
     * the address object's identity, {@value #PEER_SLOTS} slots), and the next requests on their connections are not
     * parsed and formatted again, however the connections' requests interleave.
     */
    public String of(RoutingContext rc) {
        SocketAddress peer = rc.request().connection().remoteAddress();
        String remembered = peer == null ? null : peers.find(peer);
        if (remembered != null) {
            return remembered;
        }
        String host = peer == null ? null : peer.hostAddress();
        String client = rfc7239 ? resolve(host, rc.request().headers().getAll("Forwarded"), List.of())
                : resolve(host, List.of(), rc.request().headers().getAll("X-Forwarded-For"));
        byte[] address = peer == null ? null : IpAddresses.parse(host);
        if (address != null && !isTrusted(address)) { // a proxy's requests each name their client: never remembered
            peers.put(peer, client);
        }
        return client;
    }

    /**
     * An address as a client of it is counted ({@code 203.0.113.7}, {@code 2001:db8:1:2::/64} with the
     * configured IPv6 prefix), from any spelling of it: IPv4, IPv6 in any form, IPv4-mapped, or an IPv6 prefix
     * of the configured length ({@code 2001:db8:1:2::/64}); {@code null} for anything else.
     */
    public String clientOf(String address) {
        String text = address == null ? "" : address.trim();
        int slash = text.indexOf('/');
        if (slash >= 0) {
            if (!text.substring(slash + 1).equals(Integer.toString(ipv6Prefix))) {
                return null;
            }
            text = text.substring(0, slash);
        }
        byte[] bytes = IpAddresses.parse(text);
        if (bytes == null || (slash >= 0 && bytes.length != 16)) {
            return null;
        }
        return IpAddresses.format(bytes, ipv6Prefix);
    }

    /** The client, given the peer's address text and the forwarding header lines in order. */
    String resolve(String peerText, List<String> forwarded, List<String> xForwardedFor) {
        byte[] peer = IpAddresses.parse(peerText);
        if (peer == null) {
            return peerText == null ? "unknown" : peerText;
        }
        if (!isTrusted(peer)) {
            return IpAddresses.format(peer, ipv6Prefix);
        }
        List<String> lines = rfc7239 ? forwarded : xForwardedFor;
        byte[] leftmost = peer;
        int entries = 0;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            int end = line.length();
            while (end >= 0) {
                if (++entries > MAX_HOPS) {
                    return IpAddresses.format(peer, ipv6Prefix);
                }
                int comma = line.lastIndexOf(',', end - 1);
                if (hops > 0 && entries < hops) {
                    end = comma; // a trusted proxy's entry, whatever it holds
                    continue;
                }
                String entry = line.substring(comma + 1, end);
                byte[] hop = rfc7239 ? IpAddresses.parse(forValue(entry)) : IpAddresses.parse(entry);
                if (hop == null) {
                    return IpAddresses.format(peer, ipv6Prefix); // malformed: believe nothing
                }
                if (hops > 0 || !isTrusted(hop)) {
                    return IpAddresses.format(hop, ipv6Prefix);
                }
                leftmost = hop;
                end = comma;
            }
        }
        // fewer entries than trusted hops: not what the proxies send, so the peer; else every hop trusted: the first
        return IpAddresses.format(hops > 0 ? peer : leftmost, ipv6Prefix);
    }

    /** The {@code for} parameter of one RFC 7239 element, unquoted; {@code null} without one. */
    private static String forValue(String element) {
        for (String pair : element.split(";", 8)) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).trim().equalsIgnoreCase("for")) {
                String value = pair.substring(eq + 1).trim();
                if (value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"') {
                    value = value.substring(1, value.length() - 1);
                }
                return value;
            }
        }
        return null;
    }

    private boolean isTrusted(byte[] address) {
        for (Cidr c : trusted) {
            if (c.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
