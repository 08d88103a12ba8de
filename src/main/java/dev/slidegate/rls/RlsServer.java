package dev.slidegate.rls;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jboss.logging.Logger;

import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.config.StoreStack;
import dev.slidegate.engine.Decider;
import dev.slidegate.rls.proto.RateLimitResponse;
import dev.slidegate.rls.proto.RateLimitServiceGrpc;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerResponse;

/**
 * Serves {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} over gRPC on a listener of its own
 * ({@code slidegate.rls.port}, HTTP/2 without TLS), with Vert.x' gRPC server and the message classes {@code quarkus-grpc}
 * generates: not on the service's gRPC server, which would serve it (and start) in every service that adds
 * {@code quarkus-grpc} for its own reasons. Only with {@code slidegate.rls.enabled=true}. A request Slidegate will not
 * answer is {@code INVALID_ARGUMENT} with its sentence; a store that cannot decide under fail mode {@code closed},
 * {@code UNAVAILABLE} (Envoy then applies its own {@code failure_mode_deny}); anything else {@code INTERNAL} with one
 * logged line. Never a stack trace to the client.
 *
 * <p>
 * A bean only where the service has {@code quarkus-grpc} and {@code jackson-dataformat-yaml} ({@link RlsParts}): no
 * scope annotation and no observer method (either would make it a bean everywhere, and a native build of a service
 * without gRPC fail), so {@link RlsStart} starts and stops it. Its listener is held here, one per application.
 */
public class RlsServer {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    /** The largest request taken: a few descriptors are a few hundred bytes; more is a client's mistake or a flood. */
    static final long MAX_MESSAGE_BYTES = 64 * 1024;

    private static final AtomicReference<HttpServer> LISTENING = new AtomicReference<>();
    private static final AtomicReference<Vertx> OWN_VERTX = new AtomicReference<>();

    private final SlidegateConfig config;
    private final RlsPolicies policies;
    private final Decider decider;
    private final StoreStack stack;

    private final dev.slidegate.api.PlanResolver plans;

    RlsServer(SlidegateConfig config, RlsPolicies policies, Decider decider, StoreStack stack,
            dev.slidegate.api.PlanResolver plans) {
        this.config = config;
        this.policies = policies;
        this.decider = decider;
        this.stack = stack;
        this.plans = plans;
    }

    /** The port it listens on, or -1 when it does not. */
    public static int port() {
        HttpServer s = LISTENING.get();
        return s == null ? -1 : s.actualPort();
    }

    /** Listens, when {@code slidegate.rls.enabled=true}; else does nothing. */
    void start() {
        if (!config.rls().enabled()) {
            return;
        }
        RlsAnswers answers = new RlsAnswers(policies, decider, stack.inspection(),
                RlsAnswers.Headers.parse(config.rls().headers()), plans, config.rls().planEntry().orElse(null),
                config.plans().header());
        // a Vert.x of its own (one event loop, no metrics): a second HTTP server on the service's Vert.x is measured by
        // its HTTP metrics under another set of tags, which Prometheus refuses, failing the start of the service's own
        Vertx own = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1));
        GrpcServer grpc = GrpcServer.server(own, new GrpcServerOptions().setMaxMessageSize(MAX_MESSAGE_BYTES));
        grpc.callHandler(RateLimitServiceGrpc.getShouldRateLimitMethod(), call -> {
            call.exceptionHandler(e -> LOG.debugv("ShouldRateLimit: the call failed ({0})", e.toString()));
            call.handler(request -> {
                CompletionStage<RateLimitResponse> answer;
                try {
                    answer = answers.answer(request);
                } catch (RuntimeException e) {
                    answer = java.util.concurrent.CompletableFuture.failedFuture(e);
                }
                io.vertx.core.Context context = Vertx.currentContext();
                answer.whenComplete((r, error) -> { // answered on the call's own event loop, wherever the store answered
                    GrpcServerResponse<?, RateLimitResponse> response = call.response();
                    Runnable end = error == null ? () -> response.end(r) : () -> fail(response, error);
                    if (context == null || Vertx.currentContext() == context) {
                        end.run();
                    } else {
                        context.runOnContext(v -> end.run());
                    }
                });
            });
        });
        HttpServerOptions options = new HttpServerOptions().setPort(config.rls().port()).setHost(config.rls().host())
                .setHttp2ClearTextEnabled(true);
        try {
            HttpServer server = own.createHttpServer(options).requestHandler(grpc).listen()
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            LISTENING.set(server);
            OWN_VERTX.set(own);
            LOG.info("Slidegate answers Envoy's rate-limit service on " + config.rls().host() + ":" + server.actualPort() + " ("
                    + policies.rules().limits().size() + " rules of the domains " + policies.rules().domains() + ")");
        } catch (Exception e) {
            own.close();
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new ConfigurationException("slidegate.rls.port: the rate-limit service cannot listen on "
                    + config.rls().host() + ":" + config.rls().port() + " (" + cause.getMessage() + ")");
        }
    }

    /** Stops the listener, if it listens. */
    void stop() {
        HttpServer s = LISTENING.getAndSet(null);
        if (s != null) {
            s.close();
        }
        Vertx own = OWN_VERTX.getAndSet(null);
        if (own != null) {
            own.close();
        }
    }

    private static void fail(GrpcServerResponse<?, RateLimitResponse> response, Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (e instanceof RlsAnswers.BadRequest) {
            response.status(GrpcStatus.INVALID_ARGUMENT).statusMessage(e.getMessage()).end();
        } else if (e instanceof StoreUnavailableException) {
            response.status(GrpcStatus.UNAVAILABLE).statusMessage("the rate-limit store cannot decide").end();
        } else {
            LOG.errorv("ShouldRateLimit could not be answered: {0}", e.toString());
            response.status(GrpcStatus.INTERNAL).statusMessage("the rate-limit service could not decide").end();
        }
    }
}
