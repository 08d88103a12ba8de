package dev.slidegate.http;

import io.netty.util.NetUtil;

/** An IPv4 or IPv6 network, {@code 10.0.0.0/8} or {@code 2001:db8::/32}; a bare address is a /32 or /128. */
record Cidr(byte[] network, int prefix) {

    /**
     * Parses a CIDR or a bare address literal (never a host name: nothing is looked up).
     *
     * @throws IllegalArgumentException saying what would be valid
     */
    static Cidr parse(String text) {
        String t = text == null ? "" : text.trim();
        int slash = t.indexOf('/');
        byte[] address = IpAddresses.parse(slash < 0 ? t : t.substring(0, slash));
        int max = address == null ? 0 : address.length * 8;
        int prefix = max;
        if (address != null && slash >= 0) {
            try {
                prefix = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
        }
        if (address == null || prefix < 0 || prefix > max) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not an address or CIDR: expected e.g. 10.0.0.0/8, 192.168.1.7 or 2001:db8::/32");
        }
        return new Cidr(IpAddresses.mask(address, prefix), prefix);
    }

    boolean contains(byte[] address) {
        return address.length == network.length && java.util.Arrays.equals(IpAddresses.mask(address, prefix), network);
    }

    @Override
    public String toString() {
        return NetUtil.bytesToIpAddress(network) + "/" + prefix;
    }
}
