package dev.slidegate.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;

/** An override as the admin API receives it: a small JSON object, read strictly, every mistake a 400 that names it. */
final class OverrideBodies {

    private static final Set<String> MEMBERS = Set.of("limits", "block", "exempt", "expiresIn", "expiresAt", "reason");
    /** The longest expiry accepted: a year, the longest window. */
    private static final long MAX_EXPIRES_IN = Duration.ofDays(366).toSeconds();
    /** The largest body read. */
    static final int MAX_BODY = 8192;
    /** Reads bodies strictly: a member named twice is an error, not the last one winning. */
    private static final ObjectMapper JSON = new ObjectMapper(
            com.fasterxml.jackson.core.JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

    private OverrideBodies() {
    }

    /**
     * Reads a body such as {@code {"limits": ["3/1m"], "expiresIn": 3600, "reason": "…"}} strictly: one JSON object,
     * each member once, of its own type, never {@code null} (leave a member out for none).
     *
     * @param now the fleet's now, from which {@code expiresIn} counts and before which {@code expiresAt} is refused
     */
    static LimitOverride parse(LimitOverride.Target target, String body, String who, Instant now) {
        if (body == null || body.isBlank()) {
            throw new OverrideAdmin.Refused(400, "The body is empty: send e.g. {\"limits\": [\"3/1m\"], \"expiresIn\": 3600}, "
                    + "{\"block\": true, \"expiresIn\": 600} or {\"exempt\": true}");
        }
        if (body.length() > MAX_BODY) {
            throw new OverrideAdmin.Refused(400, "The body holds more than " + MAX_BODY + " characters");
        }
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (JsonParseException e) {
            throw new OverrideAdmin.Refused(400, e.getOriginalMessage().startsWith("Duplicate field")
                    ? "The body names a member twice: " + e.getOriginalMessage().replace("Duplicate field", "")
                            + " (each member once)"
                    : "The body is not a JSON object: send e.g. {\"limits\": [\"3/1m\"]}");
        } catch (java.io.IOException e) {
            throw new OverrideAdmin.Refused(400, "The body is not a JSON object: send e.g. {\"limits\": [\"3/1m\"]}");
        }
        if (json == null || !json.isObject()) {
            throw new OverrideAdmin.Refused(400, "The body is not a JSON object: send e.g. {\"limits\": [\"3/1m\"]}");
        }
        for (java.util.Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> member = it.next();
            if (!MEMBERS.contains(member.getKey())) {
                throw new OverrideAdmin.Refused(400, "'" + member.getKey() + "' is not a member of an override: expected "
                        + new java.util.TreeSet<>(MEMBERS));
            }
            if (member.getValue().isNull()) {
                throw new OverrideAdmin.Refused(400, member.getKey() + " is null: leave it out instead (an override without "
                        + "expiresIn or expiresAt never expires)");
            }
        }
        try {
            List<Limit> limits = new ArrayList<>();
            if (json.has("limits")) {
                JsonNode texts = json.get("limits");
                if (!texts.isArray()) {
                    throw WRONG_TYPE;
                }
                if (texts.isEmpty()) {
                    throw new OverrideAdmin.Refused(400, "limits is empty: expected e.g. [\"3/1m\"]");
                }
                for (JsonNode text : texts) {
                    if (!text.isTextual()) {
                        throw WRONG_TYPE;
                    }
                    limits.add(Limit.parse(text.textValue()));
                }
            }
            boolean block = flag(json, "block");
            boolean exempt = flag(json, "exempt");
            Instant expiresAt = null;
            if (json.has("expiresIn") && json.has("expiresAt")) {
                throw new OverrideAdmin.Refused(400, "Give expiresIn (seconds from now) or expiresAt (an instant), not both");
            }
            if (json.has("expiresIn")) {
                JsonNode in = json.get("expiresIn");
                if (!in.isIntegralNumber() || !in.canConvertToLong() || in.longValue() < 1 || in.longValue() > MAX_EXPIRES_IN) {
                    throw new OverrideAdmin.Refused(400,
                            "expiresIn: '" + in + "' is not an expiry: expected whole seconds from now, 1 to "
                                    + MAX_EXPIRES_IN);
                }
                expiresAt = now.plusSeconds(in.longValue()).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            }
            if (json.has("expiresAt")) {
                JsonNode at = json.get("expiresAt");
                try {
                    expiresAt = Instant.parse(at.isTextual() ? at.textValue() : "");
                } catch (java.time.format.DateTimeParseException e) {
                    throw new OverrideAdmin.Refused(400, "expiresAt: '" + (at.isTextual() ? at.textValue() : at.toString())
                            + "' is not an instant: expected e.g. 2026-12-01T08:00:00Z");
                }
                if (!expiresAt.isAfter(now)) {
                    throw new OverrideAdmin.Refused(400, "expiresAt: " + expiresAt + " is in the past (now is " + now + ")");
                }
                if (expiresAt.isAfter(now.plusSeconds(MAX_EXPIRES_IN))) {
                    throw new OverrideAdmin.Refused(400,
                            "expiresAt: " + expiresAt + " is more than 366 days away: leave it out for no expiry");
                }
            }
            String reason = null;
            if (json.has("reason")) {
                if (!json.get("reason").isTextual()) {
                    throw WRONG_TYPE;
                }
                reason = json.get("reason").textValue();
            }
            return new LimitOverride(target, limits, block, exempt, expiresAt, reason, who,
                    now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        } catch (IllegalArgumentException e) {
            throw new OverrideAdmin.Refused(400, e.getMessage());
        }
    }

    private static final OverrideAdmin.Refused WRONG_TYPE = new OverrideAdmin.Refused(400,
            "A member has the wrong type: limits is an array of texts, "
                    + "block and exempt are true or false, expiresIn a number of seconds, expiresAt and reason texts");

    /** A boolean member: absent is false. */
    private static boolean flag(JsonNode json, String member) {
        JsonNode value = json.get(member);
        if (value == null) {
            return false;
        }
        if (!value.isBoolean()) {
            throw WRONG_TYPE;
        }
        return value.booleanValue();
    }
}
