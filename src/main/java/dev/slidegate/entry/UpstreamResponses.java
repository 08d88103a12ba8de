package dev.slidegate.entry;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;

import org.jboss.logging.Logger;

import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.engine.CallerKeys;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.engine.Upstreams;

/**
 * Reads every response of a REST Client method that {@code @RateLimited} paces, and tells its policies what the
 * upstream said ({@link Upstreams#learn}). A filter of every REST client of the service (a JAX-RS provider, as Quarkus
 * REST Client finds them), which returns at once for a method no policy paces: one property read and one map lookup.
 * The method and its arguments are the ones the REST client names in the request's properties, so the key is the one
 * the call was decided under.
 */
@Provider
public class UpstreamResponses implements ClientResponseFilter {

    /** The interface method a REST client call was made through (MicroProfile REST Client). */
    static final String INVOKED_METHOD = "org.eclipse.microprofile.rest.client.invokedMethod";
    /** Its arguments (Quarkus REST Client). */
    static final String INVOKED_ARGUMENTS = "io.quarkus.rest.client.invokedMethodParameters";
    private static final Logger LOG = Logger.getLogger("dev.slidegate.upstream");

    private final MethodPolicies policies;
    private final CallerKeys keys;
    private final PlanResolver plans;
    private final Upstreams upstreams;
    private final boolean enabled;

    UpstreamResponses(MethodPolicies policies, CallerKeys keys, PlanResolver plans, Upstreams upstreams,
            SlidegateConfig config) {
        this.policies = policies;
        this.keys = keys;
        this.plans = plans;
        this.upstreams = upstreams;
        this.enabled = config.enabled();
    }

    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) {
        if (!enabled || !(request.getProperty(INVOKED_METHOD) instanceof Method method)) {
            return;
        }
        List<MethodPolicy> paced = policies.outgoing(method);
        if (paced == null) {
            return;
        }
        Object[] args = request.getProperty(RestClients.ARGUMENTS) instanceof Object[] a ? a
                : request.getProperty(INVOKED_ARGUMENTS) instanceof Object[] b ? b : null;
        if (args == null && paced.stream().anyMatch(mp -> mp.keyParameter() >= 0 || !mp.resolvers().isEmpty())) {
            LOG.debugf("%s: the response came without the call's arguments, so its key is unknown: not read", method);
            return;
        }
        Function<String, List<String>> headers = fields(response.getHeaders());
        Object[] arguments = args == null ? MethodPolicies.NO_ARGUMENTS : args;
        for (MethodPolicy mp : paced) {
            try {
                Policy configured = mp.policyFor(plans, arguments, null);
                upstreams.learn(configured, keys.resolve(mp, arguments, null), response.getStatus(), headers,
                        paced.size() == 1 ? unit -> false : unit -> countedBy(paced, mp, unit), () -> costOf(mp, arguments));
            } catch (RuntimeException e) { // the call was decided under this key a moment ago: nothing here should fail
                LOG.debugf(e, "%s: the answer of the upstream could not be read for policy '%s'", mp.where(), mp.name());
            }
        }
    }

    /**
     * What the call cost under {@code mp}, worked out again from its arguments (only when its upstream's spent quota is
     * to be explained); 1 when that fails (a resolver that needs the request the call served, which is not at hand here).
     */
    private static int costOf(MethodPolicy mp, Object[] arguments) {
        try {
            return mp.costOf(arguments, null);
        } catch (RuntimeException e) {
            return 1;
        }
    }

    /** Whether a policy of {@code paced} other than {@code mp} counts {@code unit}. */
    private static boolean countedBy(List<MethodPolicy> paced, MethodPolicy mp, String unit) {
        for (MethodPolicy other : paced) {
            String counts = other.policy().unit() == null ? Policy.REQUESTS : other.policy().unit();
            if (other != mp && counts.equals(unit)) {
                return true;
            }
        }
        return false;
    }

    /** A header field's values by name, whatever the case the upstream wrote it in. */
    static Function<String, List<String>> fields(MultivaluedMap<String, String> headers) {
        if (headers == null) { // (a response Quarkus REST Client made without any, for a call that failed)
            return name -> null;
        }
        return name -> {
            List<String> v = headers.get(name);
            if (v != null) {
                return v;
            }
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue();
                }
            }
            return null;
        };
    }
}
