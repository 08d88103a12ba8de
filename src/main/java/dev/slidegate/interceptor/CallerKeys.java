package dev.slidegate.interceptor;

import dev.slidegate.config.KeySource;
import dev.slidegate.http.ClientAddress;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

/**
 * Computes the store key of the caller of a {@link RateLimited} method: a kind prefix ({@code ip:},
 * {@code user:}, {@code hdr:}, {@code arg:}) and the caller's value made safe by {@link KeyEncoder}, or
 * {@code global}. The prefix keeps a user named {@code 10.0.0.1} apart from the address 10.0.0.1.
 */
@ApplicationScoped
class CallerKeys {

    private final Instance<CurrentIdentityAssociation> identity;
    private final ClientAddress clientAddress;

    CallerKeys(Instance<CurrentIdentityAssociation> identity, ClientAddress clientAddress) {
        this.identity = identity;
        this.clientAddress = clientAddress;
    }

    String resolve(MethodPolicy mp, Object[] args, RoutingContext rc) {
        if (mp.keyParameter() >= 0) {
            Object arg = args[mp.keyParameter()];
            if (arg == null) {
                throw new IllegalArgumentException(mp.where() + ": the @RateLimitKey argument is null; a caller needs a key");
            }
            return "arg:" + KeyEncoder.part(String.valueOf(arg));
        }
        KeySource key = mp.key();
        if (key instanceof KeySource.Global) {
            return "global";
        }
        if (rc == null) {
            throw new IllegalStateException(mp.where() + ": policy '" + mp.policy().name() + "' keys callers by " + key.spec()
                    + ", which needs an HTTP request, and this call has none: use key=global or a @RateLimitKey parameter");
        }
        if (key instanceof KeySource.Header h) {
            String value = rc.request().getHeader(h.name());
            if (value == null || value.isBlank()) {
                throw new MissingRateLimitKeyException(mp.policy().name(),
                        "The " + h.name() + " header is required: policy '" + mp.policy().name() + "' limits callers by it");
            }
            return "hdr:" + KeyEncoder.part(value.trim());
        }
        if (key instanceof KeySource.User) {
            String user = principal();
            if (user != null) {
                return "user:" + KeyEncoder.part(user);
            }
        }
        return "ip:" + KeyEncoder.part(clientAddress.of(rc));
    }

    private String principal() {
        if (!identity.isResolvable()) {
            return null;
        }
        SecurityIdentity id = identity.get().getIdentity();
        return id == null || id.isAnonymous() ? null : id.getPrincipal().getName();
    }
}
