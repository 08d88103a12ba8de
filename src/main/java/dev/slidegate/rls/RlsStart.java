package dev.slidegate.rls;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Starts and stops the listener of Envoy's rate-limit service ({@link RlsServer}) where the service was built with it
 * ({@link RlsParts}). A bean in every service (its observers make it one), so it reaches the listener only through that
 * bean: in a service without {@code quarkus-grpc} there is none, nothing here touches a class of gRPC, and a native
 * build finds none of the listener's code to analyse.
 */
public class RlsStart {

    void start(@Observes StartupEvent event, Instance<RlsServer> server) {
        if (server.isResolvable()) {
            server.get().start();
        }
    }

    void stop(@Observes ShutdownEvent event, Instance<RlsServer> server) {
        if (server.isResolvable()) {
            server.get().stop();
        }
    }
}
