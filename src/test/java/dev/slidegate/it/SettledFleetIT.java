package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.Brackets;

/**
 * Settled usage across a fleet (issue 41): the packaged service as 3 processes on one redis-server, with the shipped
 * defaults but the demo's {@code completion-tokens} policy made small (N = 600 tokens per second, sliding counter, each
 * call admitted against an estimate of 50 tokens). 24 clients ask for completions of random length (1 to 150 tokens:
 * under, at and far over the estimate), flat out. The oracle is what the endpoint streamed: each answer's tokens, counted
 * by the client, with the client's stamps before the call and after its last token. The stated bound
 * (docs/strategies.md, "Settling calls"): the usage admitted in any window of 1 s is at most N plus what those calls used
 * beyond their estimates, that is, the sum over the calls provably in one window of min(used, estimate) is at most N.
 */
class SettledFleetIT {

    private static final int N = 600;
    private static final int ESTIMATE = 50;
    private static final long W = 1_000_000_000L;
    /** How long the clients ask, after a second of warm-up under another API key. */
    private static final int SECONDS = 3;

    /**
     * One completion: the client's stamps around it (nanoTime), the tokens it streamed, the quota it was told and the
     * instance that answered.
     */
    private record Call(long sent, long received, long tokens, String policy, int port) {

        /** The quota the call was decided under: N through Redis, an instance's share under the fail mode. */
        long quota() {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(";q=(\\d+);").matcher(policy);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }
    }

    @Test
    void theSettledUsageInAnyWindowKeepsTheStatedBound() throws Exception {
        try (SharedFleet fleet = SharedFleet.use(SettledFleetIT.class)) {
            List<ServiceProcess> instances = fleet.instances();
            load(instances, "warm-up", 1_000_000_000L, new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
            ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
            load(instances, "fleet", SECONDS * 1_000_000_000L, calls, unexpected);
            assertEquals(List.of(), List.copyOf(unexpected), "only completions and refusals");
            List<Call> all = List.copyOf(calls);
            // decided by the fail mode local (Redis late): each instance's share, N / 3, said in RateLimit-Policy
            long byFailMode = all.stream().filter(c -> !c.policy().contains(";q=" + N + ";")).count();
            long[] before = all.stream().mapToLong(Call::sent).toArray();
            long[] after = all.stream().mapToLong(Call::received).toArray();
            long used = Brackets.maxProvableWeight(before, after, all.stream().mapToLong(Call::tokens).toArray(), W);
            // each kind of decision judged in its own windows (issue 56): the calls Redis decided against N, and each
            // instance's calls decided by the fail mode against the share it said (never a doubled bound for a window
            // that holds both)
            long held = held(all.stream().filter(c -> c.quota() == N).toList());
            java.util.Map<String, Long> shares = new java.util.TreeMap<>();
            for (java.util.Map.Entry<Integer, List<Call>> e : all.stream().filter(c -> c.quota() != N)
                    .collect(java.util.stream.Collectors.groupingBy(Call::port)).entrySet()) {
                long quota = e.getValue().stream().mapToLong(Call::quota).max().orElseThrow();
                assertTrue(quota > 0 && quota <= N, "a fail mode's share is a part of N: " + e.getValue().get(0));
                long heldLocally = held(e.getValue());
                shares.put("instance on " + e.getKey(), heldLocally);
                assertTrue(heldLocally <= quota, heldLocally + " tokens within the estimates in one second decided by the "
                        + "fail mode of the instance on port " + e.getKey() + ", more than its share " + quota);
            }
            long tokens = all.stream().mapToLong(Call::tokens).sum();
            long over = all.stream().filter(c -> c.tokens() > ESTIMATE).count();
            System.out.printf("three instances, 24 clients, one API key, N = %d tokens/1s, estimate %d: %d completions, "
                    + "%d tokens (%.0f per second; %d over the estimate); provably in one second at most %d tokens used, "
                    + "%d of them within the estimates decided by Redis (bound N = %d); %d decided by the fail mode, "
                    + "within the estimates at most %s%n", N, ESTIMATE, all.size(), tokens, tokens / (double) SECONDS, over,
                    used, held, N, byFailMode, shares);
            for (ServiceProcess s : instances) {
                s.log().lines().filter(l -> l.contains("WARN") || l.contains("ERROR"))
                        .forEach(l -> System.out.println("DIAG " + l));
            }
            assertTrue(held <= N, held + " tokens within the estimates in one second decided by Redis, more than " + N);
            assertTrue(tokens > (SECONDS - 1) * N,
                    "the clients were served too little to judge: " + tokens + " tokens in " + SECONDS + " s");
            chatTokensKeepTheirBudgets(instances);
            for (ServiceProcess s : instances) {
                assertEquals(0, s.log().lines().filter(l -> l.contains("ERROR")).count(), s.log());
            }
        }
    }

    private static final int CHAT_BURST = 1500;
    private static final int CHAT_MONTH = 3000;
    /**
     * What the {@link SharedFleet} starts with for this test: completions at N tokens per second, sliding-counter, charged
     * a fixed estimate first; the demo's chat a month of CHAT_MONTH tokens, at most CHAT_BURST in any second.
     */
    static final List<String> SETTINGS = List.of("-Dslidegate.policies.completion-tokens.limits=" + N + "/1s",
            "-Dslidegate.policies.completion-tokens.strategy=sliding-counter",
            "-Dslidegate.policies.completion-tokens.cost-resolver=", // (the demo estimates max-tokens)
            "-Dslidegate.policies.completion-tokens.cost=" + ESTIMATE,
            "-Dslidegate.policies.chat-tokens.limits=" + CHAT_MONTH + "/month",
            "-Dslidegate.policies.chat-burst.limits=" + CHAT_BURST + "/1s");
    /** How long the clients chat: the month's budget is spent in about 2 s at the burst's rate. */
    private static final long CHAT_NANOS = 3_000_000_000L;

    /** One chat answer: the client's stamps around it, the tokens its usage reported, its fields' policy. */
    private record Chat(long sent, long received, long tokens, String policy, java.time.Instant answered) {
    }

    /**
     * Issue 60: the demo's chat, settled with the usage each answer reports (usage-from=answer), estimated by its request
     * (llm-request). The oracle is the model's own count, the usage of each answer the clients got: in any second
     * provably at most the burst (the model answers at most max_tokens and fewer prompt tokens than the estimate counts,
     * so no call passes its estimate), and over the month at most its budget, which the load spends.
     */
    private static void chatTokensKeepTheirBudgets(List<ServiceProcess> instances) throws Exception {
        ConcurrentLinkedQueue<Chat> chats = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        java.time.YearMonth month = java.time.YearMonth.now(java.time.ZoneOffset.UTC);
        FleetClients.run(instances, 24, CHAT_NANOS, unexpected, (http, target, random) -> {
            StringBuilder prompt = new StringBuilder();
            for (int w = 1 + random.nextInt(20); w > 0; w--) {
                prompt.append("word").append(random.nextInt(100)).append(' ');
            }
            String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}],\"max_tokens\":"
                    + (1 + random.nextInt(150)) + "}";
            long sent = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                    + "/api/chat")).header("X-Api-Key", "chat-fleet").header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            long received = System.nanoTime();
            if (r.statusCode() == 200) {
                java.util.regex.Matcher total = java.util.regex.Pattern.compile("\"total_tokens\":(\\d+)").matcher(r.body());
                if (!total.find()) {
                    unexpected.add("an answer without usage: " + r.body());
                    return;
                }
                chats.add(new Chat(sent, received, Long.parseLong(total.group(1)),
                        r.headers().firstValue("RateLimit-Policy").orElse(""), java.time.Instant.now()));
            } else if (r.statusCode() == 429 && r.body().contains("#quota-exceeded")) {
                TimeUnit.MILLISECONDS.sleep(20 + random.nextInt(30));
            } else {
                unexpected.add(r.statusCode() + " " + r.body());
            }
        });
        assertEquals(List.of(), List.copyOf(unexpected), "only chat answers and refusals");
        List<Chat> all = List.copyOf(chats);
        // judged where Redis decided: the fields say the burst's whole N (an instance's fail mode says its share)
        List<Chat> byRedis = all.stream().filter(c -> c.policy().contains("\"chat-burst-1s\";q=" + CHAT_BURST + ";")).toList();
        long inASecond = Brackets.maxProvableWeight(byRedis.stream().mapToLong(Chat::sent).toArray(),
                byRedis.stream().mapToLong(Chat::received).toArray(), byRedis.stream().mapToLong(Chat::tokens).toArray(), W);
        long spent = byRedis.stream().mapToLong(Chat::tokens).sum();
        System.out.printf("three instances, 24 clients, one API key, chat: %d answers (%d decided by Redis), %d tokens; "
                + "provably in one second at most %d (burst %d); the month spent %d of %d%n", all.size(), byRedis.size(),
                all.stream().mapToLong(Chat::tokens).sum(), inASecond, CHAT_BURST, spent, CHAT_MONTH);
        assertTrue(inASecond <= CHAT_BURST, inASecond + " tokens provably in one second, more than " + CHAT_BURST);
        if (!all.stream().allMatch(c -> java.time.YearMonth.from(c.answered().atOffset(java.time.ZoneOffset.UTC))
                .equals(month))) {
            System.out.println("SettledFleetIT: the run crossed the start of a month in UTC: the month's budget is not "
                    + "judged this time");
            return;
        }
        assertTrue(spent <= CHAT_MONTH, spent + " tokens answered in the month, more than its " + CHAT_MONTH);
        assertTrue(spent >= CHAT_MONTH - 2 * 200, "the month's budget was spent: " + spent + " of " + CHAT_MONTH);
    }

    /** The most tokens within the estimates among {@code calls} provably in one window. */
    private static long held(List<Call> calls) {
        return Brackets.maxProvableWeight(calls.stream().mapToLong(Call::sent).toArray(),
                calls.stream().mapToLong(Call::received).toArray(),
                calls.stream().mapToLong(c -> Math.min(c.tokens(), ESTIMATE)).toArray(), W);
    }

    /** 24 clients ask for completions of 1 to 150 tokens under {@code apiKey} for {@code nanos}, again after a refusal. */
    private static void load(List<ServiceProcess> instances, String apiKey, long nanos, ConcurrentLinkedQueue<Call> calls,
            ConcurrentLinkedQueue<String> unexpected) throws InterruptedException {
        FleetClients.run(instances, 24, nanos, unexpected, (http, target, random) -> {
            String prompt = "p" + random.nextInt(1_000_000);
            int max = 1 + random.nextInt(150);
            long sent = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                    + "/api/completions?delay-ms=0&prompt=" + prompt + "&max-tokens=" + max)).header("X-Api-Key", apiKey)
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            long received = System.nanoTime();
            if (r.statusCode() == 200) {
                calls.add(new Call(sent, received, r.body().lines().count(),
                        r.headers().firstValue("RateLimit-Policy").orElse(""), target.port));
            } else if (r.statusCode() == 429 && r.body().contains("#quota-exceeded")) {
                TimeUnit.MILLISECONDS.sleep(20 + random.nextInt(30));
            } else {
                unexpected.add(r.statusCode() + " " + r.body());
            }
        });
    }
}
