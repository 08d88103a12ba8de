package dev.slidegate.rls;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitState;
import dev.slidegate.core.StoreInspection;
import dev.slidegate.engine.CallerKeys;
import dev.slidegate.engine.Decider;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.engine.Outcome;
import dev.slidegate.http.RateLimitHeaders;
import dev.slidegate.rls.proto.Descriptor;
import dev.slidegate.rls.proto.RateLimitRequest;
import dev.slidegate.rls.proto.RateLimitResponse;
import dev.slidegate.rls.proto.RateLimitResponse.Code;
import dev.slidegate.rls.proto.RateLimitResponse.DescriptorStatus;
import dev.slidegate.rls.proto.RateLimitResponse.HeaderValue;
import dev.slidegate.rls.proto.Unit;

/**
 * Answers {@code ShouldRateLimit}: each descriptor of the request reaches a rule ({@link RlsRules#match}); the rules'
 * policies are decided together in one call of the engine (all charged at one instant, or the one that refuses answers
 * and none is charged), with the same overrides, fail modes, metrics and logs as an HTTP request's. The answer is
 * {@code OVER_LIMIT} when one enforcing descriptor refuses; a descriptor of no rule, an unlimited one or a replaced one
 * is {@code OK}. What a client sends is bounded: at most {@link #MAX_DESCRIPTORS} descriptors; a cost above the rule's
 * limit is refused without asking the store.
 */
public final class RlsAnswers {

    /** The most descriptors one request may carry (Envoy sends one per matching action: a handful). */
    public static final int MAX_DESCRIPTORS = 64;
    /** {@code limit_remaining} of an unlimited rule, as envoyproxy/ratelimit answers (the largest uint32). */
    static final int UNLIMITED = -1;

    /** What the request asks that Slidegate will not answer: a gRPC {@code INVALID_ARGUMENT}, with its sentence. */
    public static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message, null, false, false);
        }
    }

    /** Which header fields an answer asks the client to add ({@code slidegate.rls.headers}). */
    public enum Headers {
        NONE,
        IETF,
        X_RATELIMIT;

        public static Headers parse(String text) {
            return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "none" -> NONE;
                case "ietf" -> IETF;
                case "x-ratelimit" -> X_RATELIMIT;
                default -> throw new IllegalArgumentException(
                        "slidegate.rls.headers is '" + text + "'; one of ietf, x-ratelimit, none");
            };
        }
    }

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger("dev.slidegate");
    static final int MAX_DOMAINS_SAID = 100;
    /** A descriptor's arguments, to a plan resolver: none. */
    private static final Object[] NO_ARGUMENTS = {};

    private final Set<String> unknownSaid = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Whether a descriptor's own limit was said to be ignored (once: Envoy's route configuration sets it). */
    private volatile boolean overrideSaid;
    private final RlsPolicies policies;
    private final Decider decider;
    private final StoreInspection inspection;
    private final Headers headers;

    private final dev.slidegate.api.PlanResolver plans;
    private final String planEntry;
    private final String planHeader;

    public RlsAnswers(RlsPolicies policies, Decider decider, StoreInspection inspection, Headers headers) {
        this(policies, decider, inspection, headers, call -> null, null, "X-Api-Key");
    }

    /**
     * @param plans the service's plan resolver, asked for descriptors whose rule has {@code plans}
     * @param planEntry the descriptor entry that carries the caller's API key ({@code slidegate.rls.plan-entry}), or
     *        {@code null}
     * @param planHeader the header the plan resolver reads the API key from ({@code slidegate.plans.header})
     */
    public RlsAnswers(RlsPolicies policies, Decider decider, StoreInspection inspection, Headers headers,
            dev.slidegate.api.PlanResolver plans, String planEntry, String planHeader) {
        this.policies = policies;
        this.decider = decider;
        this.inspection = inspection;
        this.headers = headers;
        this.plans = plans;
        this.planEntry = planEntry;
        this.planHeader = planHeader;
    }

    /**
     * The plan of a descriptor's caller, for a rule with plans: the plan resolver sees the descriptor as a request whose
     * headers are its entries ({@link DescriptorView}); {@code null} for none, or when the resolver fails (the rule's
     * own limit then counts).
     */
    private String planOf(RlsPolicies.Rule rule, Descriptor d) {
        try {
            return plans.plan(new dev.slidegate.api.KeyResolver.Call(rule.limit().id(), null, NO_ARGUMENTS,
                    new DescriptorView(d, planEntry, planHeader)));
        } catch (RuntimeException e) {
            LOG.debugv("ShouldRateLimit: the plan resolver failed for rule {0} ({1}): its own limit counts",
                    rule.limit().id(), e.toString());
            return null;
        }
    }

    /** One descriptor as matched: its rule (or none), its key and its cost. */
    private static final class Asked {
        final RlsRules.Limit limit;
        final MethodPolicy policy;
        final String key;
        final long cost;
        DescriptorStatus status;
        Decision decision;

        Asked(RlsRules.Limit limit, MethodPolicy policy, String key, long cost) {
            this.limit = limit;
            this.policy = policy;
            this.key = key;
            this.cost = cost;
        }
    }

    /**
     * The answer to {@code request}; completes with {@link BadRequest} for a request that names no domain or no descriptor,
     * or carries more than {@link #MAX_DESCRIPTORS}, and with the engine's failure when the store cannot decide and the
     * fail mode is {@code closed}.
     */
    public CompletionStage<RateLimitResponse> answer(RateLimitRequest request) {
        if (request.getDomain().isEmpty()) {
            return CompletableFuture.failedFuture(new BadRequest("the rate limit domain must not be empty"));
        }
        if (request.getDescriptorsCount() == 0) {
            return CompletableFuture.failedFuture(new BadRequest("the rate limit descriptor list must not be empty"));
        }
        if (request.getDescriptorsCount() > MAX_DESCRIPTORS) {
            return CompletableFuture.failedFuture(new BadRequest("a request carries at most " + MAX_DESCRIPTORS
                    + " descriptors, not " + request.getDescriptorsCount()));
        }
        RlsRules rules = policies.rules();
        if (!rules.knows(request.getDomain())) {
            unknownDomain(request.getDomain());
        }
        long requestCost = request.getHitsAddend() == 0 ? 1 : Integer.toUnsignedLong(request.getHitsAddend());
        List<Asked> asked = new ArrayList<>(request.getDescriptorsCount());
        Set<String> replaced = new HashSet<>();
        for (Descriptor d : request.getDescriptorsList()) {
            if (d.hasLimit() && !overrideSaid) {
                overrideSaid = true; // (a race says it twice at most)
                LOG.warn("Envoy's rate-limit service: a request of domain '" + shown(request.getDomain())
                        + "' carries a descriptor's own limit (" + d.getLimit().getRequestsPerUnit() + " per "
                        + d.getLimit().getUnit().name().toLowerCase(java.util.Locale.ROOT) + "); Slidegate does not honour "
                        + "it: the configured rules decide (docs/envoy.md; said once)");
            }
            List<String> keys = new ArrayList<>(d.getEntriesCount());
            List<String> values = new ArrayList<>(d.getEntriesCount());
            for (Descriptor.Entry e : d.getEntriesList()) {
                keys.add(e.getKey());
                values.add(e.getValue());
            }
            RlsRules.Match m = keys.size() > RlsRules.MAX_DEPTH ? null : rules.match(request.getDomain(), keys, values);
            long cost = d.hasHitsAddend() ? d.getHitsAddend().getValue() : requestCost;
            if (m == null) {
                asked.add(new Asked(null, null, null, cost));
                continue;
            }
            replaced.addAll(m.limit().replaces());
            RlsPolicies.Rule rule = policies.rule(m.limit());
            if (!rule.plans().isEmpty()) {
                rule = rule.forPlan(planOf(rule, d));
            }
            asked.add(new Asked(rule.limit(), rule.method(), CallerKeys.bounded(CallerKeys.custom(m.key())), cost));
        }
        List<Asked> decided = new ArrayList<>();
        List<Asked> peeked = new ArrayList<>();
        for (Asked a : asked) {
            RlsRules.Limit l = a.limit;
            if (l == null || l.name() != null && replaced.contains(l.name())) {
                a.status = DescriptorStatus.newBuilder().setCode(Code.OK).build();
            } else if (l.unlimited()) {
                a.status = DescriptorStatus.newBuilder().setCode(Code.OK).setLimitRemaining(UNLIMITED).build();
            } else if (a.policy == null || Long.compareUnsigned(a.cost, l.perUnit()) > 0) {
                // 0 requests per unit, or a cost no window ever holds (a uint64 above 2^63 reads as negative)
                a.status = status(l, l.shadow() ? Code.OK : Code.OVER_LIMIT, 0, l.unit().micros());
            } else if (a.cost == 0) {
                peeked.add(a);
            } else {
                decided.add(a);
            }
        }
        CompletionStage<Outcome> outcome = decided.isEmpty() ? CompletableFuture.completedFuture(null)
                : decider.decide(decided.stream().map(a -> a.policy).toList(), decided.stream().map(a -> a.key).toList(),
                        decided.stream().mapToInt(a -> (int) a.cost).toArray());
        return outcome.thenCompose(o -> {
            if (o != null && !o.admitted() && !(o instanceof Outcome.Refused)) {
                return CompletableFuture.failedFuture(o.failure());
            }
            // while the store is failing (a fail mode decided), a look would wait for it too: nothing is looked at
            boolean failing = o instanceof Outcome.Refused r ? r.decision().fallback()
                    : o != null && o.decisions().stream().anyMatch(Decision::fallback);
            if (o instanceof Outcome.Refused r && toldByTheRefusal(r.decision(), decided, peeked)) {
                // the refusing descriptor is told by its decision (one store call for the common refusal of one
                // descriptor); the others, charged nothing, by a look
                return look(peeked, failing).thenApply(unused -> true);
            }
            if (o instanceof Outcome.Refused) { // nothing was charged: each descriptor is told its state by a look
                peeked.addAll(decided);
                return look(peeked, failing).thenApply(unused -> {
                    if (decided.stream().noneMatch(a -> a.status.getCode() == Code.OVER_LIMIT)) {
                        // (its window moved between the refusal and the look: the refusing rule says so all the same)
                        String refuser = ((Outcome.Refused) o).decision().policy().name();
                        decided.stream().filter(a -> a.policy.name().equals(refuser)).findFirst().ifPresent(
                                a -> a.status = a.status.toBuilder().setCode(Code.OVER_LIMIT).build());
                    }
                    return true;
                });
            }
            if (o != null) {
                apply(o, decided, peeked);
            }
            return look(peeked, failing).thenApply(unused -> false);
        }).thenApply(refused -> response(asked, refused));
    }

    /**
     * The statuses of the decided descriptors of an admitted call, from the decisions it made (by policy, in the order
     * asked); one without a decision is told its state by a look that charges nothing.
     */
    private static void apply(Outcome o, List<Asked> decided, List<Asked> peeked) {
        List<Decision> made = new ArrayList<>(o.decisions());
        for (Asked a : decided) {
            Decision d = null;
            for (int i = 0; i < made.size(); i++) {
                if (made.get(i).policy().name().equals(a.policy.name())) {
                    d = made.remove(i);
                    break;
                }
            }
            if (d == null) {
                peeked.add(a);
                continue;
            }
            boolean over = !d.allowed() && !a.limit.shadow();
            a.status = status(a.limit, over ? Code.OVER_LIMIT : Code.OK, remaining(d), resetMicros(d, a.limit));
            a.decision = d;
        }
    }

    /**
     * Tells the descriptor whose policy refused by the refusal itself, and adds the others to {@code peeked}; false (and
     * nothing changed) when two descriptors of the request reached that policy, since the decision does not say which key.
     */
    private static boolean toldByTheRefusal(Decision refusing, List<Asked> decided, List<Asked> peeked) {
        Asked refuser = null;
        for (Asked a : decided) {
            if (a.policy.name().equals(refusing.policy().name())) {
                if (refuser != null) {
                    return false;
                }
                refuser = a;
            }
        }
        if (refuser == null) {
            return false;
        }
        refuser.status = status(refuser.limit, Code.OVER_LIMIT, remaining(refusing), resetMicros(refusing, refuser.limit));
        refuser.decision = refusing;
        for (Asked a : decided) {
            if (a != refuser) {
                peeked.add(a);
            }
        }
        return true;
    }

    /**
     * Tells each of {@code peeked} its state by a look that charges nothing; while the store is {@code failing}, or when a
     * look fails, its rule without its state ({@code OK}, nothing said to remain).
     */
    private CompletionStage<Void> look(List<Asked> peeked, boolean failing) {
        if (failing) {
            peeked.forEach(RlsAnswers::stateUnknown);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[peeked.size()];
        for (int i = 0; i < all.length; i++) {
            Asked a = peeked.get(i);
            all[i] = inspection.peek(a.policy.policy(), a.key).toCompletableFuture().handle((d, error) -> {
                if (error != null) {
                    stateUnknown(a);
                    return null;
                }
                long remaining = remaining(d);
                boolean over = a.cost > 0 && remaining < a.cost && !a.limit.shadow();
                a.status = status(a.limit, over ? Code.OVER_LIMIT : Code.OK, remaining, resetMicros(d, a.limit));
                a.decision = d;
                return null;
            });
        }
        return CompletableFuture.allOf(all);
    }

    /**
     * An unknown domain is answered {@code OK} (as envoyproxy/ratelimit does), so that a mistyped domain in Envoy's
     * configuration lifts every limit silently: said once per domain (at most {@link #MAX_DOMAINS_SAID} names, so a client
     * sending random domains cannot flood the log).
     */
    private void unknownDomain(String domain) {
        if (unknownSaid.size() < MAX_DOMAINS_SAID && unknownSaid.add(domain)) {
            LOG.warn("Envoy's rate-limit service: domain '" + shown(domain)
                    + "' has no rules (slidegate.rls.config has " + policies.rules().domains()
                    + "); its requests are answered OK, without a limit (said once)");
        }
    }

    /** A domain as a log line shows it: at most 64 characters. */
    private static String shown(String domain) {
        return domain.length() > 64 ? domain.substring(0, 64) + "..." : domain;
    }

    private static long remaining(Decision d) {
        long least = Long.MAX_VALUE;
        for (LimitState s : d.states()) {
            least = Math.min(least, s.remaining());
        }
        return least == Long.MAX_VALUE ? 0 : least;
    }

    private static void stateUnknown(Asked a) {
        a.status = status(a.limit, Code.OK, 0, a.limit.unit().micros());
    }

    // to the microsecond: a sliding log frees its permit one tick after the window, which whole seconds would round away
    // (a client that waits exactly the seconds said would be refused once more)
    private static long resetMicros(Decision d, RlsRules.Limit l) {
        long most = 0;
        for (LimitState s : d.states()) {
            most = Math.max(most, s.resetMicros());
        }
        return d.states().isEmpty() ? l.unit().micros() : most;
    }

    private static DescriptorStatus status(RlsRules.Limit l, Code code, long remaining, long resetMicros) {
        return DescriptorStatus.newBuilder().setCode(code)
                .setCurrentLimit(RateLimitResponse.RateLimit.newBuilder().setName(l.name() == null ? "" : l.name())
                        .setRequestsPerUnit((int) l.perUnit()).setUnit(Unit.forNumber(l.unit().ordinal() + 1)))
                .setLimitRemaining((int) Math.min(remaining, 0xFFFF_FFFFL))
                .setDurationUntilReset(com.google.protobuf.Duration.newBuilder().setSeconds(resetMicros / 1_000_000)
                        .setNanos((int) (resetMicros % 1_000_000) * 1000))
                .build();
    }

    private RateLimitResponse response(List<Asked> asked, boolean refused) {
        RateLimitResponse.Builder r = RateLimitResponse.newBuilder();
        boolean over = refused;
        Asked nearest = null;
        List<Decision> decisions = new ArrayList<>();
        for (Asked a : asked) {
            r.addStatuses(a.status);
            over |= a.status.getCode() == Code.OVER_LIMIT;
            if (a.status.hasCurrentLimit() && (nearest == null
                    || Integer.toUnsignedLong(a.status.getLimitRemaining()) < Integer
                            .toUnsignedLong(nearest.status.getLimitRemaining()))) {
                nearest = a;
            }
            if (a.decision != null) {
                decisions.add(a.decision);
            }
        }
        r.setOverallCode(over ? Code.OVER_LIMIT : Code.OK);
        if (headers == Headers.IETF && !decisions.isEmpty()) {
            String[] fields = RateLimitHeaders.fields(decisions);
            if (fields != null) {
                r.addResponseHeadersToAdd(header(RateLimitHeaders.POLICY, fields[0]));
                r.addResponseHeadersToAdd(header(RateLimitHeaders.STATE, fields[1]));
            }
        } else if (headers == Headers.X_RATELIMIT && nearest != null) {
            DescriptorStatus s = nearest.status;
            r.addResponseHeadersToAdd(header("X-RateLimit-Limit",
                    Integer.toUnsignedString(s.getCurrentLimit().getRequestsPerUnit())));
            r.addResponseHeadersToAdd(header("X-RateLimit-Remaining", Integer.toUnsignedString(s.getLimitRemaining())));
            r.addResponseHeadersToAdd(header("X-RateLimit-Reset", Long.toString(LimitState.wholeSeconds(
                    s.getDurationUntilReset().getSeconds() * 1_000_000 + s.getDurationUntilReset().getNanos() / 1000))));
        }
        return r.build();
    }

    private static HeaderValue header(String key, String value) {
        return HeaderValue.newBuilder().setKey(key).setValue(value).build();
    }
}
