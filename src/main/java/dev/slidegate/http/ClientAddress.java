package dev.slidegate.http;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Singleton;

import dev.slidegate.config.SlidegateConfig;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

/**
 * Who the client of a request is, for the {@code ip} key.
 *
 * <p>
 * The TCP peer, unless the peer is a configured trusted proxy. Then the forwarding chain
 * ({@code Forwarded} if present, else {@code X-Forwarded-For}, several header lines in order) is read
 * from the right, skipping trusted hops; the first untrusted address is the client. Entries left of
 * it were written by the client and are never believed. A malformed, unknown or obfuscated entry, or
 * more than {@value #MAX_HOPS} hops, falls back to the peer. Only the tail of a header is read, so a
 * header of 10 000 entries costs no more than one of {@value #MAX_HOPS}.
 *
 * <p>
 * Addresses are normalised: IPv4-mapped IPv6 is IPv4, every spelling of an IPv6 address is one,
 * and IPv6 is grouped by {@code slidegate.http.ipv6-prefix} (default /64).
 */
@Singleton
public class ClientAddress {

    static final int MAX_HOPS = 32;

    private final List<Cidr> trusted = new ArrayList<>();
    private final int ipv6Prefix;

    public ClientAddress(SlidegateConfig config) {
        for (String cidr : config.http().trustedProxies().orElse(List.of())) {
            try {
                trusted.add(Cidr.parse(cidr));
            } catch (IllegalArgumentException e) {
                throw new ConfigurationException(
                        "Invalid Slidegate configuration: slidegate.http.trusted-proxies: " + e.getMessage());
            }
            if (trusted.get(trusted.size() - 1).prefix() == 0 && !config.http().trustEveryAddress()) {
                throw new ConfigurationException("Invalid Slidegate configuration: slidegate.http.trusted-proxies: '"
                        + cidr.trim() + "' trusts every address, so every caller could choose its own through "
                        + "X-Forwarded-For: list your proxies' addresses, or set slidegate.http.trust-every-address=true "
                        + "if every request really passes a proxy that writes the header");
            }
        }
        ipv6Prefix = config.http().ipv6Prefix();
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new ConfigurationException("Invalid Slidegate configuration: slidegate.http.ipv6-prefix: '" + ipv6Prefix
                    + "' is not a prefix length: expected 1 to 128, e.g. 64");
        }
    }

    /** The client of {@code rc}, normalised, e.g. {@code 203.0.113.7} or {@code 2001:db8:1:2::/64}. */
    public String of(RoutingContext rc) {
        SocketAddress peer = rc.request().connection().remoteAddress();
        String host = peer == null ? null : peer.hostAddress();
        return resolve(host, rc.request().headers().getAll("Forwarded"), rc.request().headers().getAll("X-Forwarded-For"));
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
        boolean rfc7239 = !forwarded.isEmpty();
        List<String> lines = rfc7239 ? forwarded : xForwardedFor;
        byte[] leftmost = peer;
        int hops = 0;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            int end = line.length();
            while (end >= 0) {
                if (++hops > MAX_HOPS) {
                    return IpAddresses.format(peer, ipv6Prefix);
                }
                int comma = line.lastIndexOf(',', end - 1);
                String entry = line.substring(comma + 1, end);
                byte[] hop = rfc7239 ? IpAddresses.parse(forValue(entry)) : IpAddresses.parse(entry);
                if (hop == null) {
                    return IpAddresses.format(peer, ipv6Prefix); // malformed: believe nothing
                }
                if (!isTrusted(hop)) {
                    return IpAddresses.format(hop, ipv6Prefix);
                }
                leftmost = hop;
                end = comma;
            }
        }
        return IpAddresses.format(leftmost, ipv6Prefix); // every hop trusted: the first one
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
