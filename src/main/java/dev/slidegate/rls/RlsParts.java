package dev.slidegate.rls;

import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;

import dev.slidegate.config.OptionalParts;

/**
 * Adds the listener of Envoy's rate-limit service ({@link RlsServer}) and its marker ({@link RlsSupport}) while the
 * service is built, only when it has {@code quarkus-grpc} (Vert.x' gRPC server) and {@code jackson-dataformat-yaml}, as
 * {@link OptionalParts} adds the Redis beans: absent, never failing the build, otherwise.
 */
public class RlsParts implements BuildCompatibleExtension {

    static final String GRPC_SERVER = "io.vertx.grpc.server.GrpcServer";
    static final String YAML = "com.fasterxml.jackson.dataformat.yaml.YAMLMapper";

    @Discovery
    public void discover(ScannedClasses scanned) {
        if (OptionalParts.present(GRPC_SERVER) && OptionalParts.present(YAML)) {
            scanned.add("dev.slidegate.rls.RlsServer");
            scanned.add("dev.slidegate.rls.RlsSupport");
        }
    }
}
