package dev.slidegate.entry;

import java.util.List;
import java.util.function.Supplier;

import dev.slidegate.api.ReportsUsage;
import dev.slidegate.api.Usage;
import dev.slidegate.core.AnswerUsage;
import dev.slidegate.engine.MethodPolicy;

/** What a settled method's result says it used ({@link ReportsUsage}), reported as the result comes, in its own shape. */
final class UsageReports {

    private UsageReports() {
    }

    /**
     * {@code result} reporting what it says it used ({@link ReportsUsage}) to {@code usage} when it comes: a {@code Uni}'s
     * item, each of a {@code Multi}'s items (added up), a stage's value, a plain value at once. With {@code fromAnswer}
     * ({@code usage-from=answer}), a result that is an LLM provider's answer in text (a {@code CharSequence}, bytes, a
     * Vert.x {@code Buffer} or {@code JsonObject}, a server-sent event, or a {@code Response} or {@code RestResponse} with
     * such an entity) adds the usage the answer says to the call's ({@link AnswerTally}): a {@code Multi}'s items as one
     * stream, read as they pass. Such a result is an endpoint's or a bean method's: a REST client's answer is read as the
     * client reads it ({@link AnswerUsages}), and an endpoint's result is not read when a REST client call of its request
     * read an answer already (it relays that answer).
     */
    static Object reporting(Object result, MethodPolicy.Kind kind, Supplier<Usage> usage, boolean fromAnswer) {
        return switch (kind) {
            case UNI -> ((io.smallrye.mutiny.Uni<?>) result).invoke(item -> report(item, usage, false, fromAnswer));
            case MULTI -> fromAnswer ? readingTheAnswer((io.smallrye.mutiny.Multi<?>) result, usage)
                    : ((io.smallrye.mutiny.Multi<?>) result).invoke(item -> report(item, usage, true, false));
            case STAGE -> ((java.util.concurrent.CompletionStage<?>) result).thenApply(value -> {
                report(value, usage, false, fromAnswer);
                return value;
            });
            case PLAIN -> {
                report(result, usage, false, fromAnswer);
                yield result;
            }
        };
    }

    private static void report(Object value, Supplier<Usage> usage, boolean add, boolean fromAnswer) {
        if (value instanceof ReportsUsage r) {
            if (add) {
                usage.get().add(r.used());
            } else {
                usage.get().report(r.used());
            }
        } else if (fromAnswer) {
            Object text = text(value instanceof jakarta.ws.rs.core.Response r ? r.getEntity()
                    : value instanceof org.jboss.resteasy.reactive.RestResponse<?> r ? r.getEntity() : value);
            if (text != null) { // a reader only for an answer in text: a typed result allocates nothing
                AnswerUsage answer = AnswerUsage.of(AnswerUsage.Framing.ITEMS);
                feed(answer, text);
                new AnswerTally(false).add(answer.tokens(), usage.get());
            }
        }
    }

    /**
     * A stream whose items are an LLM provider's answer: each subscription reads its items as one stream of items
     * ({@link AnswerUsage.Framing#ITEMS}), and after each item the usage it said so far is added where it grew.
     */
    private static io.smallrye.mutiny.Multi<?> readingTheAnswer(io.smallrye.mutiny.Multi<?> stream, Supplier<Usage> usage) {
        return io.smallrye.mutiny.Multi.createFrom().deferred(() -> {
            AnswerUsage answer = AnswerUsage.of(AnswerUsage.Framing.ITEMS);
            AnswerTally tally = new AnswerTally(false);
            return stream.invoke(item -> {
                if (item instanceof ReportsUsage r) {
                    usage.get().add(r.used());
                    return;
                }
                Object text = text(item);
                if (text != null) {
                    feed(answer, text);
                    tally.add(answer.tokens(), usage.get());
                }
            });
        });
    }

    /**
     * What one call's answer reported so far, added to the usage it reports to as it grows: a request that makes several
     * calls (a tool loop, a retry) is charged the sum of their answers, and a stream's running totals count once.
     * An answer that tells input and output apart adds to each ({@link Usage#addTokens}); its total beyond their sum is
     * added to the total alone. An endpoint's own answer adds nothing when a REST client call of its request read one
     * ({@link RequestUsage#readFromClient}): it relays what was counted.
     */
    static final class AnswerTally {
        private final boolean client;
        private long input;
        private long output;
        private long total;
        private boolean reported;

        AnswerTally(boolean client) {
            this.client = client;
        }

        /** Adds what {@code tokens} (the answer's usage so far, or {@code null}) says beyond what was added before. */
        void add(AnswerUsage.Tokens tokens, Usage usage) {
            if (tokens == null) {
                return;
            }
            if (usage instanceof RequestUsage request) {
                if (client) {
                    request.readFromClient = true;
                } else if (request.readFromClient) {
                    return;
                }
            }
            long all = Math.max(0, tokens.charged() - total);
            total += all;
            if (tokens.input() >= 0 && tokens.output() >= 0) {
                long in = Math.max(0, tokens.input() - input);
                long out = Math.max(0, tokens.output() - output);
                input += in;
                output += out;
                usage.addTokens(in, out);
                all = Math.max(0, all - in - out);
            }
            if (all > 0 || !reported) {
                usage.add(all);
            }
            reported = true;
        }
    }

    /**
     * {@code item} as text an answer can be read from: a {@code CharSequence} or bytes (a Vert.x {@code Buffer}'s, a
     * {@code JsonObject} written, a server-sent event's data), or {@code null} for anything else.
     */
    private static Object text(Object item) {
        if (item instanceof CharSequence || item instanceof byte[]) {
            return item;
        } else if (item instanceof io.vertx.core.buffer.Buffer buffer) {
            return buffer.getBytes();
        } else if (item instanceof io.vertx.mutiny.core.buffer.Buffer buffer) {
            return buffer.getBytes();
        } else if (item instanceof io.vertx.core.json.JsonObject json) {
            return json.encode();
        } else if (item instanceof jakarta.ws.rs.sse.InboundSseEvent event) { // (a REST client's SseEvent is one too)
            return event.readData();
        }
        return null;
    }

    /** Reads {@code text} ({@link #text}) as the next item of {@code answer}. */
    private static void feed(AnswerUsage answer, Object text) {
        if (text instanceof CharSequence chars) {
            answer.item(chars);
        } else {
            byte[] bytes = (byte[]) text;
            answer.item(bytes, 0, bytes.length);
        }
    }

    /** Whether any of {@code policies} reads its usage from the call's answer ({@code usage-from=answer}). */
    static boolean fromAnswer(List<MethodPolicy> policies) {
        for (int i = 0; i < policies.size(); i++) { // (by index: no iterator for every call)
            if (policies.get(i).settlement().fromAnswer()) {
                return true;
            }
        }
        return false;
    }

    /** Whether any of {@code policies} settles its calls. */
    static boolean settles(List<MethodPolicy> policies) {
        for (int i = 0; i < policies.size(); i++) {
            if (policies.get(i).settlement().settles()) {
                return true;
            }
        }
        return false;
    }
}
