package dev.slidegate.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.admin.AdminViews.OverrideList;
import dev.slidegate.admin.AdminViews.OverrideView;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;
import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Overrides;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The admin API's overrides: reads a request body strictly (unknown members, wrong types, bad limits
 * and expiries are a 400 that changes nothing), checks the target against the known policies and
 * plans (404), saves through the {@link OverrideSource}, applies the change on this instance at once,
 * and logs it once: who, what, before and after.
 */
@Singleton
class OverrideAdmin {

    private static final Logger LOG = Logger.getLogger("dev.slidegate.overrides");
    private static final Set<String> MEMBERS = Set.of("limits", "block", "exempt", "expiresIn", "expiresAt", "reason");
    /** The longest expiry accepted: a year, the longest window. */
    private static final long MAX_EXPIRES_IN = Duration.ofDays(366).toSeconds();
    /** The largest body read. */
    static final int MAX_BODY = 8192;

    /** A request the admin API refuses: its HTTP status and a sentence. */
    static final class Refused extends RuntimeException {
        final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    private final PolicyRegistry registry;
    private final OverrideSource source;
    private final Overrides overrides;

    OverrideAdmin(PolicyRegistry registry, OverrideSource source, Overrides overrides) {
        this.registry = registry;
        this.source = source;
        this.overrides = overrides;
    }

    /** Every override in force, by policy, plan and key. */
    OverrideList list() {
        Instant now = overrides.now();
        return new OverrideList(source.name(), overrides.active().stream().map(o -> view(o, now)).toList());
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

    /** Checks {@code policy}, {@code plan} and {@code key} against what the service knows and makes a target. */
    LimitOverride.Target target(String policy, String plan, String key) {
        Map<String, PolicyRegistry.Resolved> known = registry.policies();
        PolicyRegistry.Resolved r = known.get(policy);
        boolean planPolicy = r == null && key != null
                && known.values().stream().anyMatch(p -> p.plans().values().stream().anyMatch(pp -> pp.name().equals(policy)));
        if (r == null && !planPolicy) {
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
                LimiterStore.checkKey(key);
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

    private static Throwable failure(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof UnsupportedOperationException) {
            return new Refused(409, cause.getMessage());
        }
        return new Refused(503, "The override could not be saved: " + cause.getMessage());
    }

    private static String describe(LimitOverride o, Instant now) {
        return o == null || !o.activeAt(now) ? "none" : o.describe();
    }

    /** Reads a body such as {@code {"limits": ["3/1m"], "expiresIn": 3600, "reason": "…"}}. */
    LimitOverride parse(LimitOverride.Target target, String body, String who) {
        if (body == null || body.isBlank()) {
            throw new Refused(400, "The body is empty: send e.g. {\"limits\": [\"3/1m\"], \"expiresIn\": 3600}, "
                    + "{\"block\": true, \"expiresIn\": 600} or {\"exempt\": true}");
        }
        if (body.length() > MAX_BODY) {
            throw new Refused(400, "The body holds more than " + MAX_BODY + " characters");
        }
        JsonObject json;
        try {
            json = new JsonObject(body);
        } catch (DecodeException | ClassCastException e) {
            throw new Refused(400, "The body is not a JSON object: send e.g. {\"limits\": [\"3/1m\"]}");
        }
        for (String member : json.fieldNames()) {
            if (!MEMBERS.contains(member)) {
                throw new Refused(400, "'" + member + "' is not a member of an override: expected " + new java.util.TreeSet<>(
                        MEMBERS));
            }
        }
        try {
            List<Limit> limits = new ArrayList<>();
            if (json.containsKey("limits")) {
                JsonArray texts = json.getJsonArray("limits");
                if (texts == null || texts.isEmpty()) {
                    throw new Refused(400, "limits is empty: expected e.g. [\"3/1m\"]");
                }
                for (int i = 0; i < texts.size(); i++) {
                    limits.add(Limit.parse(texts.getString(i)));
                }
            }
            boolean block = Boolean.TRUE.equals(json.getBoolean("block"));
            boolean exempt = Boolean.TRUE.equals(json.getBoolean("exempt"));
            Instant now = overrides.now();
            Instant expiresAt = null;
            if (json.containsKey("expiresIn") && json.containsKey("expiresAt")) {
                throw new Refused(400, "Give expiresIn (seconds from now) or expiresAt (an instant), not both");
            }
            if (json.getValue("expiresIn") != null) {
                Object in = json.getValue("expiresIn");
                if (!(in instanceof Integer || in instanceof Long) || ((Number) in).longValue() < 1
                        || ((Number) in).longValue() > MAX_EXPIRES_IN) {
                    throw new Refused(400, "expiresIn: '" + in + "' is not an expiry: expected whole seconds from now, 1 to "
                            + MAX_EXPIRES_IN);
                }
                expiresAt = now.plusSeconds(((Number) in).longValue()).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            }
            if (json.getValue("expiresAt") != null) {
                try {
                    expiresAt = Instant.parse(json.getString("expiresAt"));
                } catch (java.time.format.DateTimeParseException e) {
                    throw new Refused(400, "expiresAt: '" + json.getValue("expiresAt")
                            + "' is not an instant: expected e.g. 2026-12-01T08:00:00Z");
                }
                if (!expiresAt.isAfter(now)) {
                    throw new Refused(400, "expiresAt: " + expiresAt + " is in the past (now is " + now + ")");
                }
                if (expiresAt.isAfter(now.plusSeconds(MAX_EXPIRES_IN))) {
                    throw new Refused(400,
                            "expiresAt: " + expiresAt + " is more than 366 days away: leave it out for no expiry");
                }
            }
            return new LimitOverride(target, limits, block, exempt, expiresAt, json.getString("reason"), who,
                    now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        } catch (ClassCastException e) {
            throw new Refused(400, "A member has the wrong type: limits is an array of texts, block and exempt are true or "
                    + "false, expiresIn a number of seconds, expiresAt and reason texts");
        } catch (IllegalArgumentException e) {
            throw new Refused(400, e.getMessage());
        }
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
