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
     * such an entity) reports the usage the answer says ({@link AnswerUsage}): a {@code Multi}'s items as one stream, read
     * as they pass.
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
            AnswerUsage answer = AnswerUsage.of(AnswerUsage.Framing.ITEMS);
            if (read(answer, value instanceof jakarta.ws.rs.core.Response r ? r.getEntity()
                    : value instanceof org.jboss.resteasy.reactive.RestResponse<?> r ? r.getEntity() : value)) {
                reportTokens(answer, usage);
            }
        }
    }

    /**
     * A stream whose items are an LLM provider's answer: each subscription reads its items as one stream of items
     * ({@link AnswerUsage.Framing#ITEMS}), and after each item that said a usage the most it said so far is the usage.
     */
    private static io.smallrye.mutiny.Multi<?> readingTheAnswer(io.smallrye.mutiny.Multi<?> stream, Supplier<Usage> usage) {
        return io.smallrye.mutiny.Multi.createFrom().deferred(() -> {
            AnswerUsage answer = AnswerUsage.of(AnswerUsage.Framing.ITEMS);
            return stream.invoke(item -> {
                if (item instanceof ReportsUsage r) {
                    usage.get().add(r.used());
                } else if (read(answer, item)) {
                    reportTokens(answer, usage);
                }
            });
        });
    }

    private static void reportTokens(AnswerUsage answer, Supplier<Usage> usage) {
        AnswerUsage.Tokens tokens = answer.tokens();
        if (tokens != null) {
            report(tokens, usage.get());
        }
    }

    /**
     * Reports what an answer said: its input and output tokens when it said both (each settles a policy of that part),
     * and the total it is charged (never less than their sum).
     */
    static void report(AnswerUsage.Tokens tokens, Usage usage) {
        if (tokens.input() >= 0 && tokens.output() >= 0) {
            usage.reportTokens(Math.min(tokens.input(), Usage.MAX / 2), Math.min(tokens.output(), Usage.MAX / 2));
        }
        usage.report(tokens.charged());
    }

    /** Reads {@code item} as the next item of {@code answer}; whether it was text the answer can be read from. */
    private static boolean read(AnswerUsage answer, Object item) {
        if (item instanceof CharSequence text) {
            answer.item(text);
        } else if (item instanceof byte[] bytes) {
            answer.item(bytes, 0, bytes.length);
        } else if (item instanceof io.vertx.core.buffer.Buffer buffer) {
            answer.item(buffer.getBytes(), 0, buffer.length());
        } else if (item instanceof io.vertx.mutiny.core.buffer.Buffer buffer) {
            answer.item(buffer.getBytes(), 0, buffer.length());
        } else if (item instanceof io.vertx.core.json.JsonObject json) {
            answer.item(json.encode());
        } else if (item instanceof jakarta.ws.rs.sse.InboundSseEvent event) { // (a REST client's SseEvent is one too)
            answer.item(event.readData());
        } else {
            return false;
        }
        return true;
    }

    /** Whether any of {@code policies} reads its usage from the call's answer ({@code usage-from=answer}). */
    static boolean fromAnswer(List<MethodPolicy> policies) {
        for (MethodPolicy mp : policies) {
            if (mp.settlement().fromAnswer()) {
                return true;
            }
        }
        return false;
    }

    /** Whether any of {@code policies} settles its calls. */
    static boolean settles(List<MethodPolicy> policies) {
        for (MethodPolicy mp : policies) {
            if (mp.settlement().settles()) {
                return true;
            }
        }
        return false;
    }
}
