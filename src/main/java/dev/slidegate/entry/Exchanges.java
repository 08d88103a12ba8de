package dev.slidegate.entry;

import java.util.function.Consumer;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

import dev.slidegate.api.Usage;
import dev.slidegate.engine.Exchange;
import dev.slidegate.http.ClientAddress;
import io.quarkus.arc.Arc;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.ext.web.RoutingContext;

/** Makes the {@link Exchange} of a Vert.x request: where the entry points hand a request to the engine. */
@Singleton
class Exchanges {

    /** Where a request's {@link Usage} is kept in its routing context, for a call decided before its endpoint ran. */
    static final String USAGE = Usage.class.getName();

    private final Instance<CurrentIdentityAssociation> identity;
    private final ClientAddress clientAddress;

    Exchanges(Instance<CurrentIdentityAssociation> identity, ClientAddress clientAddress) {
        this.identity = identity;
        this.clientAddress = clientAddress;
    }

    /** The exchange of {@code rc}, or {@code null} outside HTTP. */
    Exchange of(RoutingContext rc) {
        return rc == null ? null : new Vertx(rc);
    }

    /** The request's {@link Usage}, made and kept in its routing context when nobody asked for it yet. */
    static Usage usageOf(RoutingContext rc) {
        Usage usage = rc.get(USAGE);
        if (usage == null) {
            usage = new RequestUsage();
            rc.put(USAGE, usage);
        }
        return usage;
    }

    /** Makes the request-scoped {@link Usage} a service injects. */
    @Singleton
    static class UsageProducer {

        /** The request's {@link Usage}: one per request, found by the end of a call decided before its endpoint ran. */
        @jakarta.enterprise.inject.Produces
        @jakarta.enterprise.context.RequestScoped
        Usage usage(io.quarkus.vertx.http.runtime.CurrentVertxRequest request) {
            RoutingContext rc = request.getCurrent();
            return rc != null ? usageOf(rc) : new Usage();
        }
    }

    /** A Vert.x request, as the engine and the resolvers see it. */
    private final class Vertx implements Exchange {

        private final RoutingContext rc;

        Vertx(RoutingContext rc) {
            this.rc = rc;
        }

        @Override
        public String method() {
            return rc.request().method().name();
        }

        @Override
        public String path() {
            return rc.normalizedPath();
        }

        @Override
        public String header(String name) {
            return rc.request().getHeader(name);
        }

        @Override
        public String queryParam(String name) {
            return rc.request().getParam(name);
        }

        @Override
        public String clientAddress() {
            return clientAddress.of(rc);
        }

        /** From the HTTP layer's user, else the CDI identity; null when anonymous. */
        @Override
        public String user() {
            SecurityIdentity id = null;
            if (rc.user() instanceof QuarkusHttpUser user) {
                id = user.getSecurityIdentity();
            } else if (identity != null && identity.isResolvable() && Arc.container().requestContext().isActive()) {
                id = identity.get().getIdentity();
            }
            return id == null || id.isAnonymous() ? null : id.getPrincipal().getName();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            if (type.isInstance(rc)) {
                return type.cast(rc);
            }
            throw new IllegalArgumentException("The request is a Vert.x RoutingContext, not a " + type.getName());
        }

        @Override
        public boolean clientGone() {
            return rc.response().closed();
        }

        @Override
        public boolean answered() {
            return rc.response().ended() || rc.response().closed();
        }

        @Override
        public void whenAnswered(Consumer<Boolean> then) {
            rc.addEndHandler(end -> then.accept(HttpOutcomes.failed(rc, end.failed())));
        }

        @Override
        public int answerStatus() {
            return rc.response().ended() ? rc.response().getStatusCode() : dev.slidegate.core.CountWhen.UNKNOWN;
        }

        @Override
        public String answerHeader(String name) {
            return rc.response().headers().get(name);
        }

        @Override
        public Usage usage() {
            return usageOf(rc);
        }

        @Override
        public Usage usageIfAny() {
            return rc.get(USAGE);
        }

        @Override
        public void partition(dev.slidegate.api.Decision decision, String key) {
            dev.slidegate.http.HttpDecisions.partition(rc, decision, key);
        }
    }
}
