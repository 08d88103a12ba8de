package dev.slidegate.redis;

import java.util.ArrayList;
import java.util.List;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;
import io.vertx.redis.client.Response;

/**
 * The one shape every strategy's decision script shares: which script, which keys, the ARGV layout,
 * and the decoding of the reply. Each script's header repeats the layout with its own parameter.
 *
 * <pre>
 * KEYS     slidegate:{&lt;policy&gt;:&lt;caller key&gt;}&lt;suffix&gt;: one key per (policy, caller key), whatever
 *          the limits in force (:log, :fw, :sc, :tb), so that a reset, a listing and a change of limits
 *          all see everything counted
 * ARGV[1]  cost, at least 1; 0 reads the state and writes nothing (admin views)
 * ARGV[2]  2 * max-wait (µs) + 1 when refused attempts are charged too (count-rejected), + 0 else: one number, so
 *          that the layout of every script stays as it was before calls could wait
 * ARGV[3]  the strategy's parameter: sliding counter the cells per window; sliding log the largest N
 *          (unused: the log's own record of its limits says what it keeps); 0 for the others
 * ARGV[4…] N and W (microseconds) of each limit, in the policy's order
 *
 * reply    {allowed 1|0, tripped limit (0-based, -1 when allowed), retry-after µs when refused or the wait when
 *           admitted (its permits are recorded that long after now), now µs,
 *           remaining_1, reset_1 µs, remaining_2, reset_2 µs, …}  (now: Redis TIME; the limits as of the instant
 *           an admitted call's permits are recorded at)
 * </pre>
 */
final class DecisionScripts {

    static final LuaScript SLIDING_LOG = LuaScript.load("sliding_log.lua");
    static final LuaScript FIXED_WINDOW = LuaScript.load("fixed_window.lua");
    static final LuaScript SLIDING_COUNTER = LuaScript.load("sliding_counter.lua");
    static final LuaScript TOKEN_BUCKET = LuaScript.load("token_bucket.lua");
    static final LuaScript CONCURRENCY = LuaScript.load("concurrency.lua");

    /** The strategies' scripts, numbered from 1 in this order inside {@link #BATCH}. */
    private static final List<LuaScript> STRATEGIES = List.of(SLIDING_LOG, FIXED_WINDOW, SLIDING_COUNTER, TOKEN_BUCKET,
            CONCURRENCY);

    /**
     * Several decisions in one script call ({@code batch.lua}, which includes every strategy's script as
     * a function numbered as in {@link #STRATEGIES}). Only where every key lives on one server.
     */
    static final LuaScript BATCH = batchOf("batch.lua", STRATEGIES);

    /**
     * A call of several policies decided in one step ({@code group.lua}, which includes every strategy's script, numbered
     * as {@link #BATCH} numbers them: {@code strategies.lua}).
     */
    static final LuaScript GROUP = batchOf("group.lua", STRATEGIES);

    /** Gives back a sliding log's permits charged at one instant ({@code refund_sliding_log.lua}). */
    static final LuaScript REFUND_LOG = LuaScript.load("refund_sliding_log.lua");

    /** Gives back the permits of a batch its instance did not use ({@code give_back_sliding_log.lua}). */
    static final LuaScript GIVE_BACK_LOG = LuaScript.load("give_back_sliding_log.lua");

    /** Holds a key, or reads how long it is held ({@code hold.lua}). */
    static final LuaScript HOLD = LuaScript.load("hold.lua");

    /** Keeps or reads the limits a key learned from its upstream ({@code learned.lua}). */
    static final LuaScript LEARNED = LuaScript.load("learned.lua");

    /** The suffix of the key that holds a (policy, key)'s leases of calls in flight. */
    static final String IN_FLIGHT_SUFFIX = ":in";

    /** Renews or ends leases of calls in flight ({@code lease.lua}). */
    static final LuaScript LEASE = LuaScript.load("lease.lua");

    /** The suffixes of the keys that hold the queue of calls waiting for a slot, and when each ticket lapses. */
    static final String QUEUE_SUFFIX = ":q";
    static final String LAPSES_SUFFIX = ":ql";

    /** Queues calls for a slot, asks again for them, or takes them out of the queue ({@code slot_wait.lua}). */
    static final LuaScript SLOT_WAIT = LuaScript.load("slot_wait.lua");

    /** The suffix of the key that keeps what a (policy, key) learned from its upstream, beside its state. */
    static final String LEARNED_SUFFIX = ":up";

    /**
     * Charges or refunds the difference between a call's actual usage and its estimate: one script per strategy that
     * settles ({@code settle_<strategy>.lua}, sharing {@code settle_prelude.lua}), by that strategy's decision script. A
     * strategy that settles adds its entry here; no script names another's.
     */
    static final java.util.Map<LuaScript, LuaScript> SETTLES = java.util.Map.of(
            FIXED_WINDOW, LuaScript.load("settle_fixed_window.lua"),
            SLIDING_COUNTER, LuaScript.load("settle_sliding_counter.lua"),
            TOKEN_BUCKET, LuaScript.load("settle_token_bucket.lua"));

    /** Every decision script, for {@code SCRIPT LOAD} at start-up: the strategies', then the others. */
    static final List<LuaScript> ALL = java.util.stream.Stream.of(STRATEGIES,
            List.of(BATCH, GROUP, REFUND_LOG, GIVE_BACK_LOG, HOLD, LEARNED, LEASE, SLOT_WAIT), SETTLES.values())
            .flatMap(java.util.Collection::stream)
            .toList();

    /** The settle script of {@code shape}'s strategy. */
    static LuaScript settleScript(Shape shape) {
        LuaScript settle = SETTLES.get(shape.script());
        if (settle == null) {
            throw new IllegalArgumentException("this strategy cannot settle a call after it ran");
        }
        return settle;
    }

    /**
     * The {@code EVALSHA} arguments of {@code script} ({@link #BATCH} or {@link #GROUP}) for {@code count} decisions, the
     * {@code i}-th of {@code shape(i)} with its own {@code EVALSHA} arguments {@code cmd(i)} ({@link Shape#evalsha}):
     * every decision's keys, then how many decisions, then per decision its head and ARGV.
     */
    static String[] several(LuaScript script, int count, java.util.function.IntFunction<Shape> shape,
            java.util.function.IntFunction<String[]> cmd) {
        int keys = 0;
        int size = 3;
        for (int i = 0; i < count; i++) {
            keys += shape.apply(i).keySuffixes().size();
            size += cmd.apply(i).length + 1; // its keys and ARGV, plus the head's three, less SHA and key count
        }
        String[] all = new String[size];
        all[0] = script.sha1();
        all[1] = Integer.toString(keys);
        int k = 2;
        int a = 2 + keys;
        all[a++] = Integer.toString(count);
        for (int i = 0; i < count; i++) {
            String[] one = cmd.apply(i);
            Shape s = shape.apply(i);
            int n = s.keySuffixes().size();
            System.arraycopy(one, 2, all, k, n);
            k += n;
            for (String h : s.batchHead()) {
                all[a++] = h;
            }
            int args = one.length - 2 - n;
            System.arraycopy(one, 2 + n, all, a, args);
            a += args;
        }
        return all;
    }

    /**
     * {@code file} ({@code batch.lua}, {@code group.lua}), checked to number each strategy's function as {@code scripts} does.
     */
    private static LuaScript batchOf(String file, List<LuaScript> scripts) {
        LuaScript batch = LuaScript.load(file);
        for (int i = 0; i < scripts.size(); i++) {
            String function = "strategies[" + (i + 1) + "] = function(KEYS, ARGV)\n" + scripts.get(i).body() + "\nend\n";
            if (!batch.body().contains(function)) {
                throw new IllegalStateException(file + " does not number " + scripts.get(i).name() + " as " + (i + 1));
            }
        }
        return batch;
    }

    /** The fixed part of every reply: allowed, tripped, retry-after, now; then two values per limit. */
    private static final int HEAD = 4;

    /**
     * What a policy contributes to every call, built once per policy.
     *
     * @param script the strategy's script
     * @param keySuffixes what follows the prefix in each key, in the order of KEYS
     * @param parameter ARGV[3]
     * @param limitArgs ARGV[4…]: N and W of each limit
     * @param batchHead what precedes this decision's ARGV inside {@link #BATCH}: script number, key count, ARGV count
     */
    record Shape(LuaScript script, List<String> keySuffixes, String parameter, List<String> limitArgs,
            List<String> batchHead, List<dev.slidegate.api.Periods> periods) {

        Shape(LuaScript script, List<String> keySuffixes, String parameter, List<String> limitArgs) {
            this(script, keySuffixes, parameter, limitArgs, null);
        }

        /** @param periods per limit, its calendar periods or {@code null}; {@code null} when no limit has any */
        Shape(LuaScript script, List<String> keySuffixes, String parameter, List<String> limitArgs,
                List<dev.slidegate.api.Periods> periods) {
            this(script, keySuffixes, parameter, limitArgs, List.of(Integer.toString(STRATEGIES.indexOf(script) + 1),
                    Integer.toString(keySuffixes.size()), Integer.toString(3 + limitArgs.size())), periods);
        }

        /** A calendar limit's W argument and the period (on this instance's clock) it holds for. */
        private record CalendarArg(long start, long end, String arg) {
        }

        /** The W argument of each calendar limit, kept for its current period: one per periods and zone configured. */
        private static final java.util.concurrent.ConcurrentHashMap<dev.slidegate.api.Periods, CalendarArg> CALENDAR_ARGS = new java.util.concurrent.ConcurrentHashMap<>();

        /**
         * The W argument of a limit counted per calendar period, for a call now: {@code <name>@<longest>,<b1>,...}, the
         * starts of the previous, current and next two periods and the end of the last (the server's clock picks among
         * them, and a call may wait up to a day, which a period of 23 hours at least and the next one cover). It depends
         * only on the current period, so it is worked out once per period, not per call.
         */
        static String calendarArg(dev.slidegate.api.Periods p, long nowMicros) {
            CalendarArg kept = CALENDAR_ARGS.get(p);
            if (kept != null && nowMicros >= kept.start() && nowMicros < kept.end()) {
                return kept.arg();
            }
            long current = p.startOf(nowMicros);
            long next = p.endOf(nowMicros);
            StringBuilder b = new StringBuilder(p.name()).append('@').append(p.longestMicros()).append(',')
                    .append(p.startOf(current - 1)).append(',').append(current);
            long end = next;
            for (int k = 0; k < 3; k++) {
                b.append(',').append(end);
                end = p.endOf(end);
            }
            String arg = b.toString();
            CALENDAR_ARGS.put(p, new CalendarArg(current, next, arg));
            return arg;
        }

        static Shape of(Policy policy) {
            List<String> limits = new ArrayList<>(2 * policy.limits().size());
            policy.limits().forEach(l -> {
                limits.add(Integer.toString(l.permits()));
                limits.add(Long.toString(l.windowMicros()));
            });
            if (policy.inFlight()) { // calls in flight: slots, with the queue of calls that wait for one
                return new Shape(CONCURRENCY, List.of(IN_FLIGHT_SUFFIX, QUEUE_SUFFIX, LAPSES_SUFFIX),
                        Long.toString(dev.slidegate.core.InFlightSlots.inFlightRetryMicros(policy)), limits);
            }
            return switch (policy.strategy()) {
                case SLIDING_LOG -> new Shape(SLIDING_LOG, List.of(":log"), Integer.toString(policy.maxPermits()), limits);
                case FIXED_WINDOW -> new Shape(FIXED_WINDOW, List.of(":fw"), "0", limits,
                        policy.limits().stream().anyMatch(Limit::calendar)
                                ? java.util.Collections.unmodifiableList(new ArrayList<>(
                                        policy.limits().stream().map(Limit::periods).toList()))
                                : null);
                case SLIDING_COUNTER -> new Shape(SLIDING_COUNTER, List.of(":sc"), Integer.toString(policy.cells()), limits);
                case TOKEN_BUCKET -> new Shape(TOKEN_BUCKET, List.of(":tb"), "0", List.copyOf(limits));
            };
        }

        /**
         * {@code EVALSHA} arguments of a batch of permits taken ahead ({@code sliding_log.lua}, ARGV[1] {@code a...}):
         * {@code cost} to {@code most} permits, usable for {@code usableMicros}.
         */
        String[] takeAhead(String keyPrefix, int cost, int most, long usableMicros) {
            String[] cmd = evalsha(keyPrefix, cost, false, 0);
            cmd[2 + keySuffixes.size()] = "a" + cost + "," + most + "," + usableMicros;
            return cmd;
        }

        /** {@code EVALSHA} arguments: SHA, key count, KEYS, ARGV, the calendar periods around {@code nowMicros}. */
        String[] evalsha(String keyPrefix, int cost, boolean countRejected, long nowMicros) {
            return evalsha(keyPrefix, cost, countRejected, 0, nowMicros);
        }

        /**
         * {@code EVALSHA} arguments of a call that may wait up to {@code maxWaitMicros} for its permits, the calendar
         * periods given around {@code aroundMicros}: this instance's clock at first, the server's time when the script
         * said the periods given did not hold it.
         */
        String[] evalsha(String keyPrefix, int cost, boolean countRejected, long maxWaitMicros, long aroundMicros) {
            return evalsha(keyPrefix, cost, countRejected, maxWaitMicros, aroundMicros, 0);
        }

        /**
         * As {@link #evalsha(String, int, boolean, long, long)}, the call placed no earlier than {@code notBeforeMicros}
         * on the server's clock (0: at its own first instant), as a call of several policies asks ({@code group.lua}).
         */
        String[] evalsha(String keyPrefix, int cost, boolean countRejected, long maxWaitMicros, long aroundMicros,
                long notBeforeMicros) {
            String[] cmd = new String[5 + keySuffixes.size() + limitArgs.size()];
            cmd[0] = script.sha1();
            cmd[1] = Integer.toString(keySuffixes.size());
            int i = 2;
            for (String suffix : keySuffixes) {
                cmd[i++] = keyPrefix + suffix;
            }
            cmd[i++] = Integer.toString(cost);
            String flags = Long.toString(2 * maxWaitMicros + (countRejected ? 1 : 0));
            cmd[i++] = notBeforeMicros > 0 ? flags + '@' + notBeforeMicros : flags;
            cmd[i++] = parameter;
            for (String a : limitArgs) {
                cmd[i++] = a;
            }
            if (periods != null) { // the periods around the instant given; the server's clock picks among them
                int first = i - limitArgs.size();
                for (int k = 0; k < periods.size(); k++) {
                    if (periods.get(k) != null) {
                        cmd[first + 2 * k + 1] = calendarArg(periods.get(k), aroundMicros);
                    }
                }
            }
            return cmd;
        }
    }

    private DecisionScripts() {
    }

    /** What a script says, and nothing else, when the calendar periods it was given do not hold the server's time. */
    static final String PERIODS_MISSED = "the calendar periods given do not hold the server time ";

    /**
     * The server's time (µs) in a failure that says the calendar periods given did not hold it, or -1 for any other
     * failure. Such a script wrote nothing (it looks for the period before any write), so the call can be made again.
     */
    static long periodsMissed(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = t.getMessage();
            int at = m == null ? -1 : m.indexOf(PERIODS_MISSED);
            if (at >= 0) {
                int from = at + PERIODS_MISSED.length();
                int to = from;
                while (to < m.length() && to - from < 19 && Character.isDigit(m.charAt(to))) {
                    to++;
                }
                return to > from ? Long.parseLong(m.substring(from, to)) : -1;
            }
        }
        return -1;
    }

    /** {@code EVALSHA} arguments of {@link #HOLD} for the state of {@code shape}: {@code forMicros} 0 only reads. */
    static String[] hold(Shape shape, String keyPrefix, long forMicros, boolean unlessHeld) {
        boolean log = shape.script() == SLIDING_LOG;
        StringBuilder slots = new StringBuilder("#");
        if (log) {
            for (int i = 0; i < shape.limitArgs().size(); i += 2) {
                slots.append(i == 0 ? "" : ",").append(shape.limitArgs().get(i)).append('/')
                        .append(shape.limitArgs().get(i + 1));
            }
        }
        return new String[] { HOLD.sha1(), "1", keyPrefix + shape.keySuffixes().get(0), Long.toString(forMicros),
                log ? "log" : "hash", slots.toString(), unlessHeld ? "1" : "0" };
    }

    /**
     * {@code EVALSHA} arguments of the settle script of {@code shape}'s strategy ({@link #settleScript}): charges
     * {@code delta} more permits (refunds, below 0) where the call admitted at {@code admittedAtMicros} was charged.
     */
    static String[] settle(Shape shape, String keyPrefix, long admittedAtMicros, long delta) {
        boolean bucket = shape.script() == TOKEN_BUCKET;
        List<String> periods = new ArrayList<>(0);
        if (shape.periods() != null) {
            for (dev.slidegate.api.Periods p : shape.periods()) {
                if (p != null) {
                    periods.add(p.name() + "=" + p.startOf(admittedAtMicros));
                }
            }
        }
        String[] cmd = new String[6 + (bucket ? shape.limitArgs().size() : periods.size())];
        cmd[0] = settleScript(shape).sha1();
        cmd[1] = "1";
        cmd[2] = keyPrefix + shape.keySuffixes().get(0);
        cmd[3] = Long.toString(admittedAtMicros);
        cmd[4] = Long.toString(delta);
        cmd[5] = shape.script() == SLIDING_COUNTER ? shape.parameter() : "0";
        for (int i = 6; i < cmd.length; i++) {
            cmd[i] = bucket ? shape.limitArgs().get(i - 6) : periods.get(i - 6);
        }
        return cmd;
    }

    /**
     * {@code EVALSHA} arguments of {@link #LEARNED}: keeps {@code limits} for {@code forMicros} (rounded up to ms), forgets
     * them ({@code limits} empty), or only reads ({@code limits} null).
     */
    static String[] learned(String keyPrefix, List<Limit> limits, long forMicros) {
        StringBuilder value = new StringBuilder();
        if (limits != null) {
            for (Limit l : limits) {
                value.append(value.isEmpty() ? "" : ",").append(l.permits()).append('/').append(l.windowMicros());
            }
        }
        String keep = limits == null ? "0" : limits.isEmpty() ? "-1" : Long.toString((forMicros + 999) / 1000);
        return new String[] { LEARNED.sha1(), "1", keyPrefix + LEARNED_SUFFIX, keep, value.toString() };
    }

    /**
     * {@code EVALSHA} arguments of {@link #LEASE} for the leases of {@code policy}'s key: renews them for its lease time,
     * or ends them ({@code renew} false).
     */
    static String[] lease(Policy policy, String keyPrefix, List<Long> leases, boolean renew) {
        return lease(policy, keyPrefix, leases, renew ? policy.leaseMicros() : 0);
    }

    /** {@code EVALSHA} arguments of {@link #LEASE} that read how old the key's oldest live lease is. */
    static String[] oldestLease(Policy policy, String keyPrefix) {
        return lease(policy, keyPrefix, List.of(), -1);
    }

    private static String[] lease(Policy policy, String keyPrefix, List<Long> leases, long w) {
        String[] cmd = new String[4 + leases.size()];
        cmd[0] = LEASE.sha1();
        cmd[1] = "1";
        cmd[2] = keyPrefix + IN_FLIGHT_SUFFIX;
        cmd[3] = Long.toString(w);
        for (int i = 0; i < leases.size(); i++) {
            cmd[4 + i] = Long.toString(leases.get(i));
        }
        return cmd;
    }

    /**
     * {@code EVALSHA} arguments of {@link #SLOT_WAIT}: queues or asks again for {@code tickets} for {@code lapseMicros}, or
     * takes them out of the queue ({@code lapseMicros} 0).
     */
    static String[] slotWait(Policy policy, String keyPrefix, List<Long> tickets, long lapseMicros) {
        String[] cmd = new String[8 + tickets.size()];
        cmd[0] = SLOT_WAIT.sha1();
        cmd[1] = "3";
        cmd[2] = keyPrefix + IN_FLIGHT_SUFFIX;
        cmd[3] = keyPrefix + QUEUE_SUFFIX;
        cmd[4] = keyPrefix + LAPSES_SUFFIX;
        cmd[5] = Integer.toString(policy.maxInFlight());
        cmd[6] = Long.toString(policy.leaseMicros());
        cmd[7] = Long.toString(lapseMicros);
        for (int i = 0; i < tickets.size(); i++) {
            cmd[8 + i] = Long.toString(tickets.get(i));
        }
        return cmd;
    }

    /** The turn a reply of {@link #SLOT_WAIT} says. */
    static DecisionStore.Turn turn(Response r) {
        int named = (r.size() - 2) / 2;
        List<Long> tickets = new ArrayList<>(named);
        List<Long> leases = new ArrayList<>(named);
        for (int i = 0; i < named; i++) {
            tickets.add(r.get(2 + 2 * i).toLong());
            leases.add(r.get(3 + 2 * i).toLong());
        }
        return new DecisionStore.Turn(tickets, leases, r.get(0).toInteger(), r.get(1).toLong());
    }

    /** The limits a reply of {@link #LEARNED} names; a value not written by {@link #learned} names none. */
    static List<Limit> learnedLimits(String value) {
        if (value == null || value.isEmpty()) {
            return List.of();
        }
        List<Limit> limits = new ArrayList<>();
        try {
            for (String one : value.split(",", DecisionStore.MAX_LEARNED_LIMITS + 1)) {
                int slash = one.indexOf('/');
                limits.add(new Limit(Integer.parseInt(one.substring(0, slash)), Long.parseLong(one.substring(slash + 1))));
            }
        } catch (RuntimeException e) { // written by something else than Slidegate: nothing learned
            return List.of();
        }
        return limits.size() > DecisionStore.MAX_LEARNED_LIMITS ? List.of() : List.copyOf(limits);
    }

    /**
     * The prefix of every key of one (policy, caller key), with the hash tag that puts every key of
     * one decision in one Redis Cluster slot.
     */
    static String keyPrefix(Policy policy, String key) {
        return "slidegate:{" + policy.name() + ":" + DecisionStore.checkKey(key) + "}";
    }

    /**
     * What a reply to {@link Shape#takeAhead} says: the decision (an admission of the call's cost, or its refusal), how
     * many permits the batch holds and the last instant they may be used at.
     */
    static dev.slidegate.core.PermitsAhead.Taken taken(Policy policy, Response r) {
        Decision d = decode(policy, r);
        int at = HEAD + 2 * policy.limits().size();
        return new dev.slidegate.core.PermitsAhead.Taken(d, d.allowed() ? r.get(at).toInteger() : 0,
                r.get(at + 1).toLong());
    }

    /** {@code EVALSHA} arguments of {@link #GIVE_BACK_LOG}: members {@code from} to {@code to} of the batch taken at. */
    static String[] giveBack(String keyPrefix, long takenAtMicros, int from, int to) {
        return new String[] { GIVE_BACK_LOG.sha1(), "1", keyPrefix + ":log", Long.toString(takenAtMicros),
                Integer.toString(from), Integer.toString(to) };
    }

    /** The decision a reply says, for {@code policy}. */
    static Decision decode(Policy policy, Response r) {
        int n = policy.limits().size();
        List<LimitState> states = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            states.add(new LimitState(policy.limits().get(i), r.get(HEAD + 2 * i).toLong(), r.get(HEAD + 1 + 2 * i).toLong()));
        }
        boolean allowed = r.get(0).toLong() == 1;
        long now = r.get(3).toLong();
        if (!allowed) {
            return new Decision(policy, false, r.get(1).toInteger(), r.get(2).toLong(), now, states);
        }
        long wait = r.get(2).toLong();
        return new Decision(policy, true, -1, 0, now + wait, states, false, wait);
    }
}
