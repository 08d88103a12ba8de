package dev.slidegate.engine;

import jakarta.enterprise.context.ApplicationScoped;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.KeySource;
import dev.slidegate.core.ByIdentity;
import dev.slidegate.core.KeyEncoder;

/**
 * Computes the store key of the caller of a {@link RateLimited} method: per source a kind prefix
 * ({@code ip:}, {@code user:}, {@code hdr:}, {@code qp:}, {@code path:}, {@code key:},
 * {@code arg:}) and the value made safe by {@link KeyEncoder}, or {@code global}; composites join
 * their parts with {@code +}, which no encoded part contains. The prefix keeps a user named
 * {@code 10.0.0.1} apart from the address 10.0.0.1. A key longer than {@value KeyEncoder#MAX_KEY} characters
 * is hashed as a whole, so the final Redis key stays under 200 bytes.
 */
@ApplicationScoped
public class CallerKeys {

    /** The key of each client address {@link Exchange#clientAddress} remembers (the same String object), for every thread. */
    private final ByIdentity<String, String> ipKeys = new ByIdentity<>(1024, null);

    public String resolve(MethodPolicy mp, Object[] args, Exchange rc) {
        if (mp.keyParameter() >= 0) {
            Object arg = args[mp.keyParameter()];
            if (arg == null) {
                throw new MissingRateLimitKeyException(mp.policy().name(),
                        "No rate-limit key for this call: policy '" + mp.policy().name() + "' limits callers by the argument "
                                + mp.where() + " is called with, and it is null");
            }
            return bounded("arg:" + KeyEncoder.part(String.valueOf(arg)));
        }
        if (mp.key() instanceof KeySource.Composite c) {
            StringBuilder key = new StringBuilder(64);
            for (KeySource part : c.parts()) {
                (key.length() == 0 ? key : key.append('+')).append(part(part, mp, args, rc));
            }
            return bounded(key.toString());
        }
        return bounded(part(mp.key(), mp, args, rc));
    }

    private String part(KeySource key, MethodPolicy mp, Object[] args, Exchange rc) {
        if (key instanceof KeySource.Global) {
            return "global";
        }
        if (key instanceof KeySource.Path) {
            return "path:" + KeyEncoder.part(mp.route());
        }
        if (key instanceof KeySource.Named n) {
            String value = mp.resolvers().get(n.name())
                    .resolve(new KeyResolver.Call(mp.policy().name(), mp.method(), args, rc));
            if (value == null || value.isBlank()) {
                throw new MissingRateLimitKeyException(mp.policy().name(),
                        "No rate-limit key for this request: policy '" + mp.policy().name() + "' limits callers by "
                                + n.name());
            }
            return custom(value);
        }
        if (key instanceof KeySource.Client) { // one quota per upstream: the REST client the call goes out through
            return "client:" + KeyEncoder.part(mp.client() == null ? mp.name() : mp.client());
        }
        if (rc == null) {
            throw new IllegalStateException(mp.where() + ": policy '" + mp.policy().name() + "' keys callers by " + key.spec()
                    + ", which needs an HTTP request, and this call has none: use key=global or a @RateLimitKey parameter");
        }
        if (key instanceof KeySource.Header h) {
            return "hdr:" + KeyEncoder.part(required(rc.header(h.name()), "The " + h.name() + " header", mp));
        }
        if (key instanceof KeySource.Param p) {
            return "qp:" + KeyEncoder.part(required(rc.queryParam(p.name()), "The query parameter " + p.name(), mp));
        }
        if (key instanceof KeySource.User) {
            String user = rc.user();
            if (user != null) {
                return "user:" + KeyEncoder.part(user);
            }
        }
        String client = rc.clientAddress();
        String ipKey = ipKeys.find(client); // an address remembered for a connection: the same key
        if (ipKey == null) {
            ipKey = "ip:" + KeyEncoder.part(client);
            ipKeys.put(client, ipKey);
        }
        return ipKey;
    }

    private static String required(String value, String what, MethodPolicy mp) {
        if (value == null || value.isBlank()) {
            throw new MissingRateLimitKeyException(mp.policy().name(),
                    what + " is required: policy '" + mp.policy().name() + "' limits callers by it");
        }
        return value.trim();
    }

    /**
     * The key of a caller named by custom code (a {@link KeyResolver}, the {@link dev.slidegate.api.RateLimiter}):
     * {@code key:<value>}, made safe.
     */
    public static String custom(String value) {
        return "key:" + KeyEncoder.part(value);
    }

    public static String bounded(String key) {
        return KeyEncoder.bounded(key);
    }
}
