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

    ScriptCalls(EventLoopConnections connections, Lateness lateness) {
        this.connections = connections;
        this.lateness = lateness;
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
        EventLoopConnections.Sent sent;
        try {
            sent = connections.send(request(Command.EVALSHA, cmd));
        } catch (RuntimeException e) { // a client that throws instead of failing the future: the same failure, never a lost decision
            onReply.handle(Future.failedFuture(e));
            return;
        }
        call.sent = sent;
        sent.answer().onComplete(evalsha -> {
            if (evalsha.failed() && isNoScript(evalsha.cause())) {
                lateness.heard(-1);
                String[] eval = cmd.clone();
                eval[0] = script.body();
                EventLoopConnections.Sent again = connections.send(request(Command.EVAL, eval));
                call.sent = again;
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
