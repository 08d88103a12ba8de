package dev.slidegate.http;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.Limit;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.IntervalSummary;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.vertx.http.HttpServerStart;
import io.quarkus.vertx.http.HttpsServerStart;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.impl.HttpServerImpl;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.core.net.impl.TCPServerBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Off unless {@code slidegate.http.header-timeout} is set (and not 0): then no route, no handler and no reflection.
 * When set, closes a connection whose request headers do not arrive within {@code slidegate.http.header-timeout}
 * (slowloris: a caller who writes its headers a byte at a time holds a connection, and the idle and
 * read-idle timeouts never fire while bytes keep coming). Vert.x 4 has no such timeout, so each accepted
 * connection gets a small handler at the front of its pipeline: it starts a timer when the connection
 * opens and, on a kept-alive connection, at the first byte after the previous response; the router's
 * first route stops it when a request's headers have arrived, so a body, a long response (the live
 * page's event stream) or an idle kept-alive connection are never timed.
 *
 * <p>
 * The handler is put on the listening socket of the application's HTTP and HTTPS servers once they
 * listen (Quarkus' {@link HttpServerStart}, which comes asynchronously), or by the first request if it comes
 * first; the management interface, if enabled, is left alone. Vert.x has no public API for any of it: the
 * internals used (its shared servers, one private field of a server, a connection's Netty channel) are listed in
 * docs/footprint.md, and {@code HeaderTimeoutInternalsTest} fails on a Vert.x version that changes them; start-up
 * says in one line when the protection is not in force. The field is registered for reflection in the native image.
 */
@Singleton
@RegisterForReflection(targets = TCPServerBase.class, fields = true, methods = false)
class HeaderTimeout {

    private static final Logger LOG = Logger.getLogger(HeaderTimeout.class);
    static final String ACCEPTOR = "slidegate-header-timeout-acceptor";
    static final String WATCH = "slidegate-header-timeout";
    /**
     * A connection's timer, seen by the router as a JDK type: after a dev-mode reload the connections of
     * the previous class loader keep their own handler class, which the new one must not cast to.
     */
    private static final AttributeKey<IntConsumer> WATCH_KEY = AttributeKey.valueOf(WATCH);
    private static final int REQUEST_STARTED = 1;
    private static final int HTTP2_STARTED = 2;
    private static final int REQUEST_ENDED = 3;

    private final Vertx vertx;
    /** Whether the timeout is set: nothing is installed otherwise. */
    private final boolean on;
    private final long timeoutNanos;
    private final String timeoutText;
    private final Counter closed;
    private final IntervalSummary warnings;
    private final Acceptor acceptor = new Acceptor();
    /** Whether a request has made sure the acceptor is on its server (a start event may have put it there first). */
    private volatile boolean installed;

    HeaderTimeout(Vertx vertx, SlidegateConfig config, Instance<MeterRegistry> metrics, dev.slidegate.core.Clock clock) {
        this.vertx = vertx;
        this.warnings = new IntervalSummary(TimeUnit.SECONDS.toNanos(60), clock::nanoTime);
        Duration timeout = config.http().headerTimeout().orElse(Duration.ZERO);
        this.on = !timeout.isZero() && !timeout.isNegative();
        this.timeoutNanos = timeout.toNanos();
        this.timeoutText = Limit.durationText(timeout.toMillis());
        this.closed = metrics.isResolvable()
                ? Counter.builder("slidegate.http.header.timeouts")
                        .description(
                                "Connections closed because their request headers took longer than slidegate.http.header-timeout")
                        .register(metrics.get())
                : null;
    }

    /** The first route of every request: its headers have arrived, so its connection's timer stops. */
    void register(@Observes Router router) {
        if (!on) {
            return;
        }
        router.route().order(Integer.MIN_VALUE).handler(this::headersArrived);
    }

    void httpStarted(@ObservesAsync HttpServerStart start) {
        if (on) {
            install(start.options().getPort());
        }
    }

    void httpsStarted(@ObservesAsync HttpsServerStart start) {
        if (on) {
            install(start.options().getPort());
        }
    }

    private void headersArrived(RoutingContext rc) {
        if (!installed) {
            // the start events come asynchronously, and a busy machine answers requests before they do: the first
            // request installs the acceptor on its server, so no connection accepted after it escapes the timeout
            installed = true;
            install(rc.request().localAddress() == null ? 0 : rc.request().localAddress().port());
        }
        HttpConnection connection = rc.request().connection();
        if (connection instanceof ConnectionBase base) {
            IntConsumer watch = base.channel().attr(WATCH_KEY).get();
            if (watch != null) {
                boolean http2 = rc.request().version() == HttpVersion.HTTP_2;
                watch.accept(http2 ? HTTP2_STARTED : REQUEST_STARTED);
                if (!http2) {
                    rc.addEndHandler(ended -> watch.accept(REQUEST_ENDED));
                }
            }
        }
        rc.next();
    }

    /** Puts the acceptor on the listening socket of each server bound to {@code port} (every one when 0). */
    void install(int port) {
        List<Channel> listening;
        try {
            listening = listening(vertx, port);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.warnf("slidegate.http.header-timeout is not in force: this Vert.x version hides its listening socket (%s)",
                    e.toString());
            return;
        }
        if (listening.isEmpty()) {
            LOG.warnf("slidegate.http.header-timeout is not in force: no listening HTTP socket found on port %d", port);
            return;
        }
        for (Channel channel : listening) {
            synchronized (this) { // both events name every server when the port is 0
                if (channel.pipeline().get(ACCEPTOR) == null) {
                    channel.pipeline().addFirst(ACCEPTOR, acceptor);
                }
            }
            LOG.debugf("Header timeout %s on %s", timeoutText, channel.localAddress());
        }
    }

    /**
     * The listening sockets of the HTTP servers of {@code vertx} bound to {@code port} (every one when 0), reached
     * through Vert.x internals (its shared servers, and a private field of a server): no public API gives them.
     */
    static List<Channel> listening(Vertx vertx, int port) throws ReflectiveOperationException {
        List<Channel> listening = new ArrayList<>();
        Field bind = TCPServerBase.class.getDeclaredField("bindFuture");
        bind.setAccessible(true);
        for (HttpServerImpl server : ((VertxInternal) vertx).sharedHttpServers().values()) {
            if (port > 0 && server.actualPort() != port) {
                continue;
            }
            Object future = bind.get(server);
            if (future instanceof Future<?> f && f.succeeded() && f.result() instanceof Channel channel) {
                listening.add(channel);
            }
        }
        return listening;
    }

    private void closedOne() {
        if (closed != null) {
            closed.increment();
        }
        warnings.record(timeoutText, (timeout, count, seconds) -> LOG.warnf("Closed %d connection(s) in the last %d s whose "
                + "request headers took longer than slidegate.http.header-timeout (%s): slow callers, or a caller holding "
                + "connections open (slowloris)", count, seconds, timeout));
    }

    /** On a listening socket: every accepted connection gets its own {@link Watch} first in its pipeline. */
    @ChannelHandler.Sharable
    private final class Acceptor extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel child) {
                Watch watch = new Watch();
                child.attr(WATCH_KEY).set(watch);
                child.pipeline().addFirst(WATCH, watch);
            }
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * One connection's timer. Every method runs on the connection's event loop: Netty calls the handler
     * methods there, and the request hooks are moved there when called elsewhere.
     */
    private final class Watch extends ChannelInboundHandlerAdapter implements IntConsumer {
        private ChannelHandlerContext ctx;
        private ScheduledFuture<?> timer;
        /** Requests whose headers arrived and whose response has not ended. */
        private int active;
        private boolean done;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            arm();
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (timer == null && active == 0 && !done) {
                arm(); // the first byte of the next request on a kept-alive connection
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            disarm();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            disarm();
        }

        private void arm() {
            if (timer == null && !done) {
                timer = ctx.executor().schedule(this::expired, timeoutNanos, TimeUnit.NANOSECONDS);
            }
        }

        private void disarm() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }

        private void expired() {
            timer = null;
            if (active == 0 && !done && ctx.channel().isActive()) {
                closedOne();
                ctx.close();
            }
        }

        @Override
        public void accept(int signal) {
            if (!ctx.executor().inEventLoop()) {
                ctx.executor().execute(() -> accept(signal));
            } else if (signal == REQUEST_ENDED) {
                if (active > 0) {
                    active--;
                }
            } else {
                requestStarted(signal == HTTP2_STARTED);
            }
        }

        private void requestStarted(boolean http2) {
            disarm();
            if (http2) { // streams are multiplexed: HTTP/2's own limits and the idle timeout take over
                done = true;
                ctx.channel().attr(WATCH_KEY).set(null);
                ctx.pipeline().remove(this);
            } else {
                active++;
            }
        }
    }
}
