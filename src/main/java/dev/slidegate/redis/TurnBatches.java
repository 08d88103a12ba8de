package dev.slidegate.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vertx.redis.client.impl.types.ErrorType;

/**
 * The decisions one event loop makes in one turn of its loop (every request read in one pass over its
 * sockets, every answer handled), sent together when the turn ends: one {@code EVALSHA} of
 * {@link DecisionScripts#BATCH} for two or more, the strategy's own script for one, at most
 * {@code batchSize} decisions per call. A decision waits no longer than the rest of the turn it was
 * asked in; each keeps its own deadline and is decided alone and atomically inside the call.
 */
final class TurnBatches {

    private final ScriptCalls calls;
    private final Lateness lateness;
    private final int batchSize;
    /** What a reply says, for a policy, asked at an instant of {@link #nanoTime}. */
    private final Decoder decoder;
    private final java.util.function.LongSupplier nanoTime;
    /** Each event loop's decisions of the current turn, not sent yet. */
    private final ThreadLocal<Turn> turns = ThreadLocal.withInitial(Turn::new);

    /** Decodes a decision's reply, asked at {@code askedNanos}. */
    interface Decoder {
        Decision decode(Policy policy, Response r, long askedNanos);
    }

    TurnBatches(ScriptCalls calls, Lateness lateness, int batchSize, Decoder decoder,
            java.util.function.LongSupplier nanoTime) {
        this.calls = calls;
        this.lateness = lateness;
        this.batchSize = batchSize;
        this.decoder = decoder;
        this.nanoTime = nanoTime;
    }

    /** Queues a decision of {@code loop}'s current turn, whose caller waits {@code budgetNanos} for it at most. */
    CompletionStage<Decision> add(Context loop, Policy policy, DecisionScripts.Shape shape, String[] cmd, long budgetNanos) {
        Lateness.Call<Decision> call = lateness.start(shape.script(), budgetNanos);
        Turn turn = turns.get();
        turn.queued.add(new Queued(policy, shape, cmd, call, nanoTime.getAsLong(), decoder));
        if (turn.queued.size() == 1) {
            loop.runOnContext(v -> flush(turn));
        }
        return call.result;
    }

    /** A decision waiting for its turn to end. */
    private record Queued(Policy policy, DecisionScripts.Shape shape, String[] cmd, Lateness.Call<Decision> call,
            long askedNanos, Decoder decoder) {

        void complete(io.vertx.core.AsyncResult<Response> reply) {
            call.complete(reply, r -> decoder.decode(policy, r, askedNanos));
        }
    }

    private static final class Turn {
        private List<Queued> queued = new ArrayList<>();
    }

    private void flush(Turn turn) {
        List<Queued> all = turn.queued;
        turn.queued = new ArrayList<>();
        for (int from = 0; from < all.size(); from += batchSize) {
            List<Queued> part = all.subList(from, Math.min(all.size(), from + batchSize));
            if (part.size() == 1) {
                Queued q = part.get(0);
                calls.call(q.shape().script(), q.cmd(), q.call(), q::complete);
            } else {
                send(List.copyOf(part));
            }
        }
    }

    private void send(List<Queued> part) {
        Lateness.Call<Decision> shared = part.get(0).call();
        calls.call(DecisionScripts.BATCH, command(part), shared, reply -> {
            for (Queued q : part) {
                q.call().sentOn(shared.sent);
            }
            for (int i = 0; i < part.size(); i++) {
                Queued q = part.get(i);
                if (reply.failed()) {
                    q.complete(reply);
                    continue;
                }
                Response all = reply.result();
                Response one = all != null && all.type() == ResponseType.MULTI && i < all.size() ? all.get(i) : null;
                q.complete(one != null && one.type() == ResponseType.MULTI
                        ? Future.succeededFuture(one)
                        : Future.failedFuture(ErrorType.create(one != null ? one.toString()
                                : "the batch's reply has no answer for decision " + i + ": " + all)));
            }
        });
        for (Queued q : part) {
            q.call().sentOn(shared.sent); // the connection a deadline of any of them gives up (kept for the patient)
        }
    }

    /** The batch's {@code EVALSHA} arguments: every decision's keys, then per decision its head and ARGV. */
    private static String[] command(List<Queued> part) {
        return DecisionScripts.several(DecisionScripts.BATCH, part.size(), i -> part.get(i).shape(), i -> part.get(i).cmd());
    }
}
