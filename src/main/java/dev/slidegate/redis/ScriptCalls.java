package dev.slidegate.redis;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Script calls on the event loops' own connections: by SHA, and on an explicit {@code NOSCRIPT} reply
 * (after a restart, failover or {@code SCRIPT FLUSH}) once more as {@code EVAL}, which runs the script
 * on the node that owns the key and caches it there. Nothing else is retried: a call that timed out may
 * have run and charged the caller already.
 */
final class ScriptCalls {

    private final EventLoopConnections connections;
    private final Lateness lateness;
    /** How far a test moved the clock ahead ({@link dev.slidegate.core.Clock#aheadMicros}): 0 outside tests. */
    private final java.util.function.LongSupplier ahead;
    /** The scripts moved ahead by the distance last seen, by the script they were made from. */
    private volatile Ahead moved = new Ahead(0, new java.util.concurrent.ConcurrentHashMap<>());

    private record Ahead(long micros, java.util.Map<LuaScript, LuaScript> scripts) {
    }

    ScriptCalls(EventLoopConnections connections, Lateness lateness) {
        this(connections, lateness, () -> 0);
    }

    ScriptCalls(EventLoopConnections connections, Lateness lateness, java.util.function.LongSupplier ahead) {
        this.connections = connections;
        this.lateness = lateness;
        this.ahead = ahead;
    }

    /** Whether calls made on an event loop use that loop's own connection (a single Redis, not a cluster). */
    boolean pinned() {
        return connections.pinned();
    }

    /**
     * Sends {@code EVALSHA cmd}; on {@code NOSCRIPT} once more as {@code EVAL} of the script's body. Each
     * send is recorded in {@code call} (the connection its deadline gives up).
     */
    void call(LuaScript script, String[] cmd, Lateness.Call<?> call, Handler<AsyncResult<Response>> onReply) {
        long micros = ahead.getAsLong();
        if (micros != 0) { // a test moved the clock: the script reads the server's TIME as far ahead
            Ahead m = moved;
            if (m.micros() != micros) {
                moved = m = new Ahead(micros, new java.util.concurrent.ConcurrentHashMap<>());
            }
            long by = micros;
            script = m.scripts().computeIfAbsent(script, s -> s.ahead(by));
            cmd = cmd.clone();
            cmd[0] = script.sha1();
        }
        send(script, cmd, call, onReply);
    }

    private void send(LuaScript script, String[] cmd, Lateness.Call<?> call, Handler<AsyncResult<Response>> onReply) {
        EventLoopConnections.Sent sent;
        try {
            sent = connections.send(request(Command.EVALSHA, cmd));
        } catch (RuntimeException e) { // a client that throws instead of failing the future: the same failure, never a lost decision
            onReply.handle(Future.failedFuture(e));
            return;
        }
        call.sentOn(sent);
        sent.answer().onComplete(evalsha -> {
            if (evalsha.failed() && isNoScript(evalsha.cause())) {
                lateness.heard(-1);
                String[] eval = cmd.clone();
                eval[0] = script.body();
                EventLoopConnections.Sent again = connections.send(request(Command.EVAL, eval));
                call.sentOn(again);
                again.answer().onComplete(onReply);
            } else {
                onReply.handle(evalsha);
            }
        });
    }

    private static Request request(Command command, String[] args) {
        Request r = Request.cmd(command);
        for (String a : args) {
            r.arg(a);
        }
        return r;
    }

    private static boolean isNoScript(Throwable e) {
        String m = e.getMessage();
        return m != null && m.startsWith("NOSCRIPT");
    }
}
