package dev.slidegate.http;

import io.netty.util.NetUtil;

/** IP address literals: parsing without name lookups, IPv4-mapped IPv6 as IPv4, masking, one spelling per address. */
final class IpAddresses {

    private IpAddresses() {
    }

    /**
     * The bytes of an address literal: 4 for IPv4 (also for IPv4-mapped IPv6), 16 for IPv6; accepts
     * {@code [v6]}, {@code [v6]:port}, {@code v4:port} and a zone suffix. {@code null} for anything
     * else, host names included (nothing is ever looked up).
     */
    static byte[] parse(String text) {
        if (text == null) {
            return null;
        }
        String t = text.trim();
        if (t.isEmpty() || t.length() > 64) {
            return null;
        }
        if (t.charAt(0) == '[') {
            int close = t.indexOf(']');
            if (close < 0) {
                return null;
            }
            t = t.substring(1, close);
        } else if (t.indexOf(':') == t.lastIndexOf(':') && t.indexOf(':') > 0) {
            t = t.substring(0, t.indexOf(':')); // v4:port
        }
        int zone = t.indexOf('%');
        if (zone >= 0) {
            t = t.substring(0, zone);
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(t);
        if (bytes == null) {
            return null;
        }
        if (bytes.length == 16 && isV4Mapped(bytes)) {
            return java.util.Arrays.copyOfRange(bytes, 12, 16);
        }
        return bytes;
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    /** A copy of {@code address} with every bit after the first {@code prefix} cleared. */
    static byte[] mask(byte[] address, int prefix) {
        byte[] masked = address.clone();
        for (int i = 0; i < masked.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            masked[i] &= (byte) (0xff << (8 - keep));
        }
        return masked;
    }

    /** IPv4 as dotted quad; IPv6 reduced to its first {@code ipv6Prefix} bits, in RFC 5952 form, with the prefix length. */
    static String format(byte[] address, int ipv6Prefix) {
        if (address.length == 4 || ipv6Prefix >= 128) {
            return NetUtil.bytesToIpAddress(address);
        }
        return NetUtil.bytesToIpAddress(mask(address, ipv6Prefix)) + "/" + ipv6Prefix;
    }
}
