package dev.slidegate.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Strategy;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/**
 * Slidegate's configuration, everything under {@code slidegate.}. Values that need more than a type
 * check (limits, strategies, key sources) are validated at start-up by {@link PolicyRegistry}, whose
 * messages name the property, the value and what would be valid.
 */
@ConfigMapping(prefix = "slidegate")
public interface SlidegateConfig {

    /** {@code false} switches every limit off: endpoints run unlimited and send no RateLimit fields. */
    @WithDefault("true")
    boolean enabled();

    /**
     * Where windows are kept: {@code memory} (this process only), {@code redis} (shared by every
     * instance), or {@code auto}: redis when {@code quarkus.redis.hosts} is set, memory otherwise.
     */
    @WithDefault("auto")
    @WithConverter(Converters.StoreKindConverter.class)
    StoreKind store();

    /** Named policies, by name: {@code slidegate.policies.<name>.*}. */
    Map<String, PolicyConfig> policies();

    /**
     * The template every policy inherits from: {@code slidegate.defaults.strategy=fixed-window}. A
     * member set here applies wherever neither the policy's configuration nor its annotation sets it.
     * Its {@code plans}, {@code default-plan}, {@code paths} and {@code methods} are not inherited.
     */
    PolicyConfig defaults();

    /** How callers are identified over HTTP. */
    HttpConfig http();

    /** How the shipped {@code PlanResolver} finds a caller's plan. */
    PlansConfig plans();

    /** The operators' view at {@code /admin}. */
    AdminConfig admin();

    /** Overrides of limits made at runtime (the admin API, or an {@code OverrideSource} bean). */
    OverridesConfig overrides();

    interface OverridesConfig {

        /**
         * How often every override is loaded again from its source, whatever it said: heals a missed
         * change notice. Changes made through the admin API apply sooner (Redis: within 250 ms).
         */
        @WithDefault("10s")
        Duration refresh();

        /**
         * The most overrides kept: setting one for a new target beyond it is refused (409) and changes nothing. Each
         * costs every instance memory and its share of a full load (at start, or after Redis lost its record of
         * changes); a change costs only the overrides it touches.
         */
        @WithDefault("10000")
        int max();
    }

    interface AdminConfig {

        /**
         * {@code false} (the default): {@code /admin} and everything below it answer 404, for everyone.
         * Turn it on in a service that secures it (role {@code slidegate-admin}).
         */
        @WithDefault("false")
        boolean enabled();

        /**
         * {@code false} (the default): the service's CORS settings ({@code quarkus.http.cors.*}) do not reach
         * {@code /admin}: a cross-origin preflight is refused (403) and no {@code Access-Control-Allow-*} field is
         * sent, so a page of an origin the service allows (and a script injected into it) cannot make credentialed
         * calls to the admin API. {@code true}: they apply to {@code /admin} as to the rest of the service.
         */
        @WithDefault("false")
        boolean cors();

        /**
         * Where the admin API, the live page and its event stream are served: this path and everything below it
         * (default {@code /q/slidegate}, beside Quarkus' own pages under the non-application root). Routes exist only
         * while {@link #enabled()}.
         */
        @WithName("root-path")
        @WithDefault("/q/slidegate")
        String rootPath();

        /** The role a caller needs for anything under {@link #rootPath()}. */
        @WithDefault("slidegate-admin")
        String role();
    }

    /** The in-process store. */
    MemoryConfig memory();

    /** Calls that wait for their permit (a policy's {@code max-wait}): how many may wait, and how late one may wake. */
    @WithName("wait")
    WaitConfig waits();

    interface WaitConfig {

        /**
         * The most calls this instance holds waiting for a permit at once, over all policies. Beyond it, a call that
         * would wait is refused at once with the problem type {@code waiting-room-full}.
         */
        @WithName("max-waiting")
        @WithDefault("10000")
        int maxWaiting();

        /** The most calls of one policy and key this instance holds waiting at once; beyond it, as {@code max-waiting}. */
        @WithName("max-waiting-per-key")
        @WithDefault("1000")
        int maxWaitingPerKey();

        /**
         * How much later than its permit's instant a held call may still run (a timer fires late on a busy event loop).
         * A call that wakes later (a long GC pause, a starved CPU) does not run on that permit: it is decided again with
         * what is left of its max-wait, so late wakers never bunch up with the calls admitted after them.
         */
        @WithName("late-tolerance")
        @WithDefault("50ms")
        Duration lateTolerance();
    }

    /** Calls this service makes to upstream APIs that limit it (policies on REST Client interfaces, or {@code outgoing}). */
    UpstreamConfig upstream();

    interface UpstreamConfig {

        /**
         * Which of the upstream's header fields are read after each response: {@code ietf} ({@code RateLimit},
         * {@code RateLimit-Policy}), {@code draft} ({@code RateLimit-Limit/-Remaining/-Reset}), {@code legacy}
         * ({@code X-RateLimit-*}), {@code retry-after}, {@code llm} ({@code x-ratelimit-*-requests/-tokens}); all by
         * default, {@code none} for none.
         */
        @WithDefault("ietf,draft,legacy,retry-after,llm")
        List<String> forms();

        /**
         * The longest an upstream's answer may hold calls (a reset or {@code Retry-After} further away is cut to it, and
         * said once): a broken or hostile upstream never stops this service for longer.
         */
        @WithDefault("5m")
        Duration ceiling();

        /**
         * How long a 429 that says neither {@code Retry-After} nor a reset holds every call of its policy and key.
         */
        @WithName("pause-without-retry-after")
        @WithDefault("1s")
        Duration pauseWithoutRetryAfter();

        /**
         * Added to every window of an outgoing policy: calls reach the upstream a little later than their permit, and
         * not all equally late, so pacing exactly at the upstream's N per W would sometimes put N + 1 calls into one of
         * its windows. With the margin, N calls are spread over W plus it (1s and 50 ms: 95% of the quota at most).
         */
        @WithDefault("50ms")
        Duration margin();

        /**
         * {@code true}: the calls of an outgoing policy that may wait ({@code max-wait} above 0) go out evenly, one per
         * (W + margin) / N of its fastest limit, never in a burst: the fleet never bursts into a quota it may share with
         * traffic it does not see, and calls an upstream's answer held go out one by one when the hold ends.
         * {@code false}: they may burst up to the limits. A policy that refuses at once is never spread.
         */
        @WithDefault("true")
        boolean spread();

        /**
         * How often, at most, an instance reads from the store what the fleet learned of one key's upstream limits: before
         * an outgoing call of a key it has not read within this long. A lower limit one instance learns from a response
         * paces every other instance's calls of that key from its next call after this. (A call that waits, placed under
         * the configured limits of a key its instance learned nothing of, reads them once more before it waits, unless they
         * were read after it was asked.)
         */
        @WithName("learned-refresh")
        @WithDefault("1s")
        Duration learnedRefresh();

        /** The most (policy, key) pairs whose learned limits this instance keeps; beyond it, new keys learn nothing. */
        @WithName("max-keys")
        @WithDefault("10000")
        int maxKeys();
    }

    LogConfig log();

    OpenApiConfig openapi();

    interface OpenApiConfig {

        /**
         * {@code true} (the default, with {@code quarkus-smallrye-openapi}): the service's OpenAPI document describes the
         * 429 (and, failing closed, 503) answers of its limited operations; {@code false}: it is left as the service's own
         * annotations make it. Read when the service is built.
         */
        @WithDefault("true")
        boolean enabled();
    }

    interface LogConfig {

        /**
         * {@code slidegate} (the default): credentials in URIs are redacted in Slidegate's own log lines. {@code all}:
         * in every line of the service (the Redis client's, Quarkus'), before any filter of the service's own.
         */
        @WithDefault("slidegate")
        String redact();
    }

    /**
     * What every policy does when Redis cannot decide, unless it sets its own {@code fail-mode}:
     * {@code local} (decide in process at N ÷ the number of live instances), {@code open}
     * (admit) or {@code closed} (refuse with 503). Unset: {@code local} for policies of calls per window,
     * {@code closed} for limits of calls in flight (which no instance can keep alone: see docs/strategies.md).
     */
    @WithName("fail-mode")
    @WithConverter(Converters.FailModeConverter.class)
    Optional<FailMode> failMode();

    /** The fail mode {@code local}. */
    FallbackConfig fallback();

    /** The fail mode {@code local}. */
    interface FallbackConfig {

        /**
         * How many instances share the limits: in process each decides at N ÷ this, so the fleet stays
         * near N. Unset (the default), each instance learns it through Redis: every instance renews an
         * entry there once a second, and the last count is kept while Redis is away. Set it to override.
         */
        Optional<Integer> instances();
    }

    /** The Redis store. */
    RedisConfig redis();

    /** Envoy's rate-limit service (docs/envoy.md). */
    RlsConfig rls();

    /** Envoy's rate-limit service ({@code envoy.service.ratelimit.v3.RateLimitService}), over gRPC. */
    interface RlsConfig {

        /**
         * {@code true}: the service answers {@code ShouldRateLimit} (Envoy, Istio and any client of Envoy's API) with the
         * rules of {@code slidegate.rls.config}. Needs {@code quarkus-grpc} and {@code jackson-dataformat-yaml} in the
         * service. Default {@code false}: nothing is served.
         */
        @WithDefault("false")
        boolean enabled();

        /**
         * The port of its own listener (HTTP/2 without TLS, as Envoy's gRPC clients call a rate-limit service): kept apart
         * from the service's HTTP port, since whoever reaches it can spend any caller's limits. {@code 0}: any free port.
         */
        @WithDefault("9081")
        int port();

        /** The address the listener binds: {@code 0.0.0.0} (the default, every interface) or one address. */
        @WithDefault("0.0.0.0")
        String host();

        /**
         * The rules, in envoyproxy/ratelimit's YAML format, one domain a file: comma-separated files or directories
         * (whose {@code .yaml} and {@code .yml} files are read). Read at start-up; a rule Slidegate cannot honour stops it
         * with one sentence.
         */
        Optional<List<String>> config();

        /**
         * How every rule counts: {@code sliding-log} (exact; the default unless {@code slidegate.defaults.strategy} says
         * otherwise), {@code fixed-window}, {@code sliding-counter} or {@code token-bucket}.
         */
        @WithConverter(Converters.StrategyConverter.class)
        Optional<Strategy> strategy();

        /**
         * The header fields an answer tells the client to add to its response: {@code ietf} (the default: {@code RateLimit}
         * and {@code RateLimit-Policy} of the IETF draft, for the descriptor nearest its limit), {@code x-ratelimit}
         * ({@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset}, as envoyproxy/ratelimit sends when asked), or
         * {@code none}.
         */
        @WithDefault("ietf")
        String headers();

        /**
         * The descriptor entry that carries the caller's API key, for rules with {@code plans} (e.g. {@code api_key}): to
         * the plan resolver it is the plans' header ({@code slidegate.plans.header}), so the shipped one finds the
         * caller's plan in {@code slidegate.plans.api-keys.*}, as for HTTP calls. Unset: only a plan resolver of the
         * service's own, reading the entries as headers, gives a descriptor a plan.
         */
        @WithName("plan-entry")
        Optional<String> planEntry();
    }

    /** One named policy. Every property overrides the same member of an {@code @RateLimited} naming this policy. */
    interface PolicyConfig {

        /** Comma-separated limits, all checked together: {@code 500/2s,2000/10s}. Units ms, s, m, h, d. */
        Optional<List<@WithConverter(Converters.LimitConverter.class) Limit>> limits();

        /** {@code sliding-log} (exact; the default), {@code fixed-window}, {@code sliding-counter} or {@code token-bucket}. */
        @WithConverter(Converters.StrategyConverter.class)
        Optional<Strategy> strategy();

        /**
         * Whose calls are counted together: {@code ip}, {@code user}, {@code global} or {@code header:<Name>}. Default
         * {@code ip}.
         */
        @WithConverter(Converters.KeySourceConverter.class)
        Optional<KeySource> key();

        /**
         * {@code true}: refused attempts are charged too, so a caller who keeps trying stays locked out (brute-force
         * protection). Default {@code false}.
         */
        @WithName("count-rejected")
        Optional<Boolean> countRejected();

        /**
         * {@code true}: decide and report (RateLimit fields, a log summary) but never refuse, to roll out
         * a new limit safely. Default {@code false}.
         */
        @WithName("dry-run")
        Optional<Boolean> dryRun();

        /**
         * On Redis: {@code false} keeps this policy's hot keys off permits taken ahead (every call a script call). Default:
         * {@code slidegate.redis.take-ahead}.
         */
        @WithName("take-ahead")
        Optional<Boolean> takeAhead();

        /** For {@code strategy=sliding-counter}: cells per window, 1 to 100. More cells admit closer to N. Default 10. */
        Optional<Integer> cells();

        /**
         * {@code local}, {@code open} or {@code closed}: what this policy does when Redis cannot decide. Default:
         * {@code slidegate.fail-mode}.
         */
        @WithName("fail-mode")
        @WithConverter(Converters.FailModeConverter.class)
        Optional<FailMode> failMode();

        /**
         * Permits one call of every method of this policy weighs, at least 1. Default: the annotation's {@code cost}, else 1.
         */
        Optional<Integer> cost();

        /**
         * How long a call may wait for its permit instead of being refused ({@code 2s}, {@code 500ms}; 0 to one day). A
         * call whose permit frees within it is admitted for that instant and held until then without a thread; one whose
         * permit frees later is refused at once. Default: the annotation's {@code maxWait}, else 0 (refuse at once).
         */
        @WithName("max-wait")
        Optional<java.time.Duration> maxWait();

        /**
         * At most this many calls of one key in flight at once, on every instance together: a concurrency policy, which
         * sets no {@code limits} and no {@code strategy}. A call holds a lease from its admission until it ends (its
         * response written, an exception, a cancellation, the client gone).
         */
        @WithName("max-in-flight")
        Optional<Integer> maxInFlight();

        /**
         * With {@code max-in-flight}: how long a lease lives unless its instance renews it (every third of it, while the
         * call runs), so the slots of an instance that died come back after it: 1s to 1d. Default 30s.
         */
        Optional<java.time.Duration> lease();

        /**
         * {@code true}: the policy paces calls this service makes to an upstream through the {@code RateLimiter} (which
         * then learns from the responses fed back to it, and adds {@code slidegate.upstream.margin} to each window). A
         * policy on a REST Client interface is outgoing without it.
         */
        Optional<Boolean> outgoing();

        /**
         * What a permit counts: {@code requests} (the default: one permit per call, or {@code cost} per call), or a unit
         * of the service's own ({@code tokens}, {@code bytes}), said in the RateLimit fields ({@code qu}), problem bodies,
         * metrics and the admin. Not for {@code max-in-flight}, which counts calls running.
         */
        Optional<String> unit();

        /**
         * The time zone the policy's limits per calendar period ({@code 1000000/month}, {@code /week}, {@code /day}) start
         * their periods in: a region such as {@code Europe/Berlin} (its changes of summer time followed), or {@code UTC}.
         * Default UTC.
         */
        @WithConverter(Converters.ZoneConverter.class)
        Optional<java.time.ZoneId> zone();

        /**
         * {@code true}: a call is admitted against its cost as an estimate, and settled when it ends with the usage its
         * code reported ({@code dev.slidegate.api.Usage}): a larger one is charged in full, a smaller one refunded at
         * once. For sliding-counter, fixed-window and token-bucket. Default false.
         */
        Optional<Boolean> settle();

        /**
         * {@code true}: the RateLimit fields of an HTTP answer name the caller's partition, the draft's {@code pk}
         * parameter: a byte sequence that is the same for every call of one caller key on every instance and differs
         * between keys (the first 12 bytes of the key's SHA-256, not the key itself), so a client that calls with several
         * keys (API keys, tenants) can tell which window each answer speaks of. Default false.
         */
        @WithName("partition-key")
        Optional<Boolean> partitionKey();

        /**
         * Count only the calls whose outcome is one of these: HTTP statuses ({@code 401}), classes of status
         * ({@code 4xx}) or exception types by their full names ({@code java.io.IOException}). A call is admitted against
         * its cost and, once its outcome is known, charged it when the outcome matches, refunded when not; a call whose
         * outcome is not known (its client left) counts. For sliding-counter, fixed-window and token-bucket; not with
         * settle. Default: every call counts.
         */
        @WithName("count-when")
        Optional<List<String>> countWhen();

        /**
         * After a breach (a call this policy refuses), the caller's key is blocked for this long: every call of it is
         * refused, on every instance, until the block ends, whatever its windows say; calls made during the block do not
         * lengthen it. An operator lifts it by resetting the key. 1ms to 1d; default: no block.
         */
        @WithName("block-for")
        Optional<java.time.Duration> blockFor();

        /**
         * With {@code block-for}: the key is blocked only at its K-th refusal within W ({@code K/W}, e.g. {@code 3/10m}),
         * counted on every instance; default: at its first refusal ({@code 1/...}).
         */
        @WithName("block-after")
        Optional<String> blockAfter();

        /**
         * With {@code settle}: a call that fails or is cancelled without reporting its usage is refunded in full, instead
         * of being charged its estimate. Default false.
         */
        @WithName("refund-failures")
        Optional<Boolean> refundFailures();

        /**
         * With {@code settle}: the response header field an HTTP endpoint reports its usage in (for example
         * {@code X-Tokens-Used: 1234}), read when the response is done, for a call whose code reported nothing else. A
         * value that is not a whole number from 0 to 2^40 is no report (said in a warning once a minute).
         */
        @WithName("usage-header")
        Optional<String> usageHeader();

        /**
         * With {@code settle}: {@code answer} reads a REST client call's usage from the answer it gets, as an LLM
         * provider reports it (OpenAI- or Anthropic-compatible, JSON or server-sent events): the tokens in and out, read as
         * the answer is read, reported as the usage of the request the call is made in.
         */
        @WithName("usage-from")
        Optional<String> usageFrom();

        /**
         * With {@code usage-from=answer}: limits of the input tokens alone (the prompt's), beside the policy's
         * {@code limits} of all its tokens, counted in a policy of their own, {@code <name>#input}, decided with it.
         */
        @WithName("input-limits")
        Optional<List<@WithConverter(Converters.LimitConverter.class) Limit>> inputLimits();

        /** As {@code input-limits}, for the output tokens alone (the answer's), counted in {@code <name>#output}. */
        @WithName("output-limits")
        Optional<List<@WithConverter(Converters.LimitConverter.class) Limit>> outputLimits();

        /**
         * The name of a {@code @Named} {@code dev.slidegate.api.CostResolver} bean that works out what each call costs
         * (with {@code settle}, its estimate) from the call: its arguments, its request. In place of {@code cost}.
         */
        @WithName("cost-resolver")
        Optional<String> costResolver();

        /**
         * Limits per plan: {@code slidegate.policies.<name>.plans.<plan>.limits=10000/1h}. A caller's plan
         * comes from the {@code PlanResolver} bean; callers without one (or with a plan this policy does
         * not list) get the {@code default-plan}, or the policy's own {@code limits} without one.
         */
        Map<String, PlanConfig> plans();

        /** The plan of callers who have none, one of {@code plans}. Default: the policy's own {@code limits}. */
        @WithName("default-plan")
        Optional<String> defaultPlan();

        /**
         * Attaches this policy to requests by path, without touching code: comma-separated patterns
         * where {@code *} is one path segment and {@code **} any rest, e.g. {@code /api/things/*,/files/**}.
         */
        Optional<List<String>> paths();

        /** With {@code paths}: the HTTP methods it applies to, e.g. {@code GET,POST}. Default: all. */
        Optional<List<String>> methods();
    }

    /** One plan of a policy. */
    interface PlanConfig {

        /** Comma-separated limits of this plan, as for a policy. */
        Optional<List<@WithConverter(Converters.LimitConverter.class) Limit>> limits();

        /** How long this plan's calls may wait for a permit, as the policy's {@code max-wait}. Default: the policy's. */
        @WithName("max-wait")
        Optional<java.time.Duration> maxWait();

        /** For a policy with {@code max-in-flight}: this plan's, instead of {@code limits}. */
        @WithName("max-in-flight")
        Optional<Integer> maxInFlight();
    }

    /** Plans, as the shipped {@code PlanResolver} assigns them: by API key. */
    interface PlansConfig {

        /** The request header that carries the caller's API key. */
        @WithDefault("X-Api-Key")
        String header();

        /**
         * API keys per plan, {@code slidegate.plans.api-keys.pro=key-1,key-2}. A key listed under
         * two plans stops start-up. Keys not listed (and callers without one) have no plan.
         */
        @WithName("api-keys")
        Map<String, List<String>> apiKeys();
    }

    /** How callers are identified over HTTP. */
    interface HttpConfig {

        /**
         * Proxies whose forwarding header is believed, as addresses or CIDRs ({@code 10.0.0.0/8},
         * {@code 2001:db8::/32}). Only when the TCP peer is one of them is the header read, right to
         * left, skipping trusted hops; the first untrusted address is the client. Empty (the default)
         * and {@code quarkus.http.proxy.proxy-address-forwarding} off: forwarding headers are ignored.
         * Unset with Quarkus' forwarding on: Quarkus' {@code quarkus.http.proxy.trusted-proxies} and
         * header choice are used (see docs/security.md).
         */
        @WithName("trusted-proxies")
        Optional<List<String>> trustedProxies();

        /**
         * The one header the trusted proxies write: {@code x-forwarded-for} (the default) or
         * {@code forwarded} (RFC 7239). The other is never read, whatever it says: a proxy vouches only
         * for the header it writes, and a client may send the other one.
         */
        @WithName("forwarded-header")
        Optional<String> forwardedHeader();

        /**
         * How many proxies in front of the service each append one entry to the header, as Envoy's
         * {@code xff_num_trusted_hops}: the client is that many entries from the right, whatever their
         * addresses. 0 (the default): trusted hops are recognised by address instead. Applies only
         * when the peer is a trusted proxy. 0 to 32.
         */
        @WithName("trusted-hops")
        @WithDefault("0")
        int trustedHops();

        /**
         * Allows a trusted-proxies entry that covers every address ({@code 0.0.0.0/0}, {@code ::/0}): only
         * where every request passes a proxy that writes the forwarding header, since otherwise every
         * caller chooses its own address.
         */
        @WithName("trust-every-address")
        @WithDefault("false")
        boolean trustEveryAddress();

        /**
         * IPv6 clients are grouped by this prefix length, since one client can rotate through the
         * addresses of its network (a /64 is the usual single subscriber). 1 to 128.
         */
        @WithName("ipv6-prefix")
        @WithDefault("64")
        int ipv6Prefix();

        /**
         * How long a caller may take to send a request's headers, from the connection's opening (the
         * first request) or from the first byte of a later one on a kept-alive connection. A connection
         * that has not sent them in time is closed: a caller who writes its headers a byte at a time
         * (slowloris) cannot hold connections open. A request body, a long response and an idle kept-alive
         * connection are not timed by it. HTTP/1.x; an HTTP/2 connection is timed until its first request. Off unless set (0
         * also means off): for services exposed
         * without a proxy that does it. Reaches Vert.x internals (docs/footprint.md).
         */
        @WithName("header-timeout")
        Optional<Duration> headerTimeout();

        /**
         * {@code slidegate} (the default): problem bodies for Slidegate's own answers only (429, 400 for a missing key,
         * 503, the admin API). {@code all}: also for requests the service's own endpoints could not read (a body-less
         * 400, malformed or mis-shaped JSON, an HTTP/1.1 request without Host). Read when the service is built.
         */
        @WithName("problem-bodies")
        @WithDefault("slidegate")
        String problemBodies();

        /**
         * {@code true} (the default): the body of a refusal answered by Slidegate's REST filter is written by RESTEasy
         * Reactive's own byte-array writer, chosen once, instead of a writer looked up per answer among the service's
         * writers (most of what a refused request allocated). Sets the request's writer through a RESTEasy Reactive
         * internal (docs/footprint.md); {@code false} leaves the choice to RESTEasy.
         */
        @WithName("fixed-problem-writer")
        @WithDefault("true")
        boolean fixedProblemWriter();
    }

    /** The in-process store. */
    interface MemoryConfig {

        /**
         * The most (policy, key) pairs kept. Beyond it idle keys are dropped first, then the least
         * recently used (whose windows then restart empty; a warning says so).
         */
        @WithName("max-keys")
        @WithDefault("100000")
        int maxKeys();
    }

    /** The Redis store; the connection itself is Quarkus' {@code quarkus.redis.*}. */
    interface RedisConfig {

        /**
         * The Quarkus Redis client Slidegate keeps its windows in: {@code slidegate} (the default, a client of its
         * own: {@code quarkus.redis.slidegate.hosts}), {@code <default>} (the service's default client,
         * {@code quarkus.redis.hosts}) or the name of any client the service injects with {@code @RedisClientName}.
         */
        @WithDefault(RedisClientSettings.OWN_CLIENT)
        String client();

        /**
         * The time budget of one decision on Redis, on the blocking and the reactive path alike: when
         * Redis has answered nothing at all for this long (killed, frozen, unreachable), the policy's
         * fail mode decides. A hung Redis never hangs a request. Late is not down: the silence allowed
         * is stretched to twice Redis's recent answer times when those are longer, and while Redis keeps
         * answering other decisions, one that is only late (a busy machine) waits on, up to
         * {@code late-limit}.
         */
        @WithDefault("250ms")
        Duration timeout();

        /**
         * How long a decision waits at most for a Redis that is up but late (it answers other decisions
         * meanwhile); past it the fail mode decides.
         */
        @WithName("late-limit")
        @WithDefault("2s")
        Duration lateLimit();

        /**
         * How many refusals each instance remembers, to answer a caller who keeps calling while refused
         * without asking Redis again (exact: see docs/operations.md); 0 turns it off. Never for
         * {@code count-rejected} policies.
         */
        @WithName("refusal-cache-size")
        @WithDefault("100000")
        int refusalCacheSize();

        /**
         * Whether a key hot on an instance admits from permits taken ahead of Redis in batches (exact: see
         * docs/strategies.md, "Hot keys"); {@code false} decides every call with a script call. Sliding-log, sliding-counter
         * and fixed-window policies only; a policy turns it off for itself with its own {@code take-ahead=false}.
         */
        @WithName("take-ahead")
        @WithDefault("true")
        boolean takeAhead();

        /**
         * The most decisions one event loop sends to Redis in one script call: the decisions of one turn
         * of the loop share calls of up to this many (a single Redis server; a cluster decides one by
         * one). 1 sends each on its own. See docs/operations.md.
         */
        @WithName("batch-size")
        @WithDefault("32")
        int batchSize();

        /** After this many failed decisions in a row, Redis is skipped (the fail mode decides) for {@code cool-down}. */
        @WithName("failure-threshold")
        @WithDefault("3")
        int failureThreshold();

        /** How long Redis is skipped after {@code failure-threshold} failures; then one decision probes it. */
        @WithName("cool-down")
        @WithDefault("500ms")
        Duration coolDown();
    }
}
