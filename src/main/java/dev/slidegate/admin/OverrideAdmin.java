package dev.slidegate.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.admin.AdminViews.OverrideList;
import dev.slidegate.admin.AdminViews.OverrideView;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;
import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import dev.slidegate.http.ClientAddress;
import io.smallrye.mutiny.Uni;

/**
 * The admin API's overrides: reads a request body strictly (unknown members, wrong types, bad limits
 * and expiries are a 400 that changes nothing), checks the target against the known policies and
 * plans (404), saves through the {@link OverrideSource}, applies the change on this instance at once,
 * and logs it once: who, what, before and after.
 */
@Singleton
@io.quarkus.arc.properties.IfBuildProperty(name = AdminBuild.ENABLED, stringValue = "true")
class OverrideAdmin {

    private static final Logger LOG = Logger.getLogger("dev.slidegate.overrides");

    /** A request the admin API refuses: its HTTP status, the problem's kind and a sentence. */
    static final class Refused extends RuntimeException {
        final int status;
        final String kind;

        Refused(int status, String message) {
            this(status, switch (status) {
                case 404 -> "not-found";
                case 409 -> "read-only";
                case 415 -> "unsupported-media-type";
                case 503 -> "store-unavailable";
                default -> "bad-request";
            }, message);
        }

        Refused(int status, String kind, String message) {
            super(message, null, false, false);
            this.status = status;
            this.kind = kind;
        }
    }

    private final PolicyCatalog catalog;
    private final OverrideSource source;
    private final Overrides overrides;
    private final ClientAddress clients;

    private final int most;

    OverrideAdmin(PolicyCatalog catalog, OverrideSource source, Overrides overrides, ClientAddress clients,
            dev.slidegate.config.SlidegateConfig config) {
        this.catalog = catalog;
        this.source = source;
        this.overrides = overrides;
        this.clients = clients;
        this.most = config.overrides().max();
    }

    /** A page of the overrides in force, by policy, plan and key: at most {@code limit} from the {@code from}-th on. */
    OverrideList list(int from, int limit) {
        Instant now = overrides.now();
        List<LimitOverride> active = overrides.active();
        int to = Math.min(active.size(), from + limit);
        List<OverrideView> page = from >= active.size() ? List.of()
                : active.subList(from, to).stream().map(o -> view(o, now)).toList();
        return new OverrideList(source.name(), page, active.size(), to < active.size() ? Integer.toString(to) : null);
    }

    /** The override of {@code target} in force. */
    OverrideView get(LimitOverride.Target target) {
        LimitOverride o = overrides.get(target);
        Instant now = overrides.now();
        if (o == null || !o.activeAt(now)) {
            throw new Refused(404, "There is no override for " + target);
        }
        return view(o, now);
    }

    /**
     * Checks {@code policy}, {@code plan} and {@code key} against what the service knows and makes a target; a key is
     * taken in the form the policy counts it under ({@link OverrideKeys}).
     */
    LimitOverride.Target target(String policy, String plan, String key) {
        Map<String, PolicyRegistry.Resolved> known = catalog.policies();
        PolicyRegistry.Resolved r = known.get(policy);
        PolicyRegistry.Resolved owner = r != null || key == null ? r
                : known.values().stream().filter(p -> p.plans().values().stream().anyMatch(pp -> pp.name().equals(policy)))
                        .findFirst().orElse(null);
        if (owner == null) {
            throw new Refused(404, "There is no policy '" + policy + "'; known: " + known.keySet());
        }
        if (plan != null) {
            String planPolicyName = policy + "." + plan;
            if (r.plans().values().stream().noneMatch(p -> p.name().equals(planPolicyName))) {
                throw new Refused(404, "Policy '" + policy + "' has no plan '" + plan + "'"
                        + (r.plans().isEmpty() ? ": it has no plans" : "; its plans: " + r.plans().keySet()));
            }
        }
        try {
            if (key != null) {
                LimitOverride.Target sent = new LimitOverride.Target(policy, null, key); // its length and characters first
                try {
                    key = OverrideKeys.canonical(DecisionStore.checkKey(key), owner.key(), clients::clientOf).key();
                } catch (IllegalArgumentException noCallersKey) {
                    if (overrides.get(sent) == null) {
                        throw noCallersKey;
                    }
                    return sent; // one set before keys were checked: it can still be read, replaced and removed
                }
            }
            return new LimitOverride.Target(policy, plan, key);
        } catch (IllegalArgumentException e) {
            throw new Refused(400, e.getMessage());
        }
    }

    /** Sets the override of {@code target} from a request body; answers what is in force now. */
    Uni<OverrideView> put(LimitOverride.Target target, String body, String who) {
        LimitOverride o = parse(target, body, who);
        LimitOverride before = overrides.get(target);
        if ((before == null || !before.activeAt(overrides.now())) && overrides.activeCount() >= most) {
            throw failure(new dev.slidegate.core.TooManyOverridesException(most));
        }
        Instant now = overrides.now();
        return Uni.createFrom().completionStage(() -> source.save(o))
                .onFailure().transform(OverrideAdmin::failure)
                .chain(() -> Uni.createFrom().completionStage(overrides.reload()))
                .map(x -> {
                    LOG.infof("Override of %s set by %s: %s -> %s%s", target, who, describe(before, now), o.describe(),
                            o.reason() == null ? "" : " (reason: " + o.reason() + ")");
                    return view(o, now);
                });
    }

    /** Removes the override of {@code target}. */
    Uni<Void> delete(LimitOverride.Target target, String who) {
        LimitOverride before = overrides.get(target);
        Instant now = overrides.now();
        if (before == null || !before.activeAt(now)) {
            throw new Refused(404, "There is no override for " + target);
        }
        return Uni.createFrom().completionStage(() -> source.remove(target))
                .onFailure().transform(OverrideAdmin::failure)
                .chain(() -> Uni.createFrom().completionStage(overrides.reload()))
                .invoke(() -> LOG.infof("Override of %s removed by %s: %s -> none", target, who, before.describe()))
                .replaceWithVoid();
    }

    private static Refused failure(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof UnsupportedOperationException) {
            return new Refused(409, cause.getMessage());
        }
        if (cause instanceof dev.slidegate.core.TooManyOverridesException) {
            return new Refused(409, "too-many-overrides", cause.getMessage());
        }
        return new Refused(503, "The override could not be saved: " + cause.getMessage());
    }

    private static String describe(LimitOverride o, Instant now) {
        return o == null || !o.activeAt(now) ? "none" : o.describe();
    }

    /** Reads a body strictly (see {@link OverrideBodies#parse}), expiries counted from the fleet's now. */
    LimitOverride parse(LimitOverride.Target target, String body, String who) {
        return OverrideBodies.parse(target, body, who, overrides.now());
    }

    /** An override as the admin API shows it; {@code expiresIn} in whole seconds left, rounded up. */
    static OverrideView view(LimitOverride o, Instant now) {
        LimitOverride.Target t = o.target();
        Long left = o.expiresAt() == null ? null : Math.max(0, (Duration.between(now, o.expiresAt()).toMillis() + 999) / 1000);
        return new OverrideView(t.policy(), t.plan(), t.key(), o.limits().stream().map(Limit::toString).toList(), o.block(),
                o.exempt(), o.expiresAt() == null ? null : o.expiresAt().toString(), left, o.reason(), o.setBy(),
                o.setAt().toString());
    }

    /**
     * The policy an admin view of {@code p} shows for {@code key}: with the limits of an override of the key, plan or policy.
     */
    Policy inForce(String base, Policy p, String key) {
        Overrides.Active a = overrides.find(base, p, key);
        return a == null ? p : a.applyTo(p);
    }
}
