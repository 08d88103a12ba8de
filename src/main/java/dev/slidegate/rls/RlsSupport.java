package dev.slidegate.rls;

/**
 * A bean only where the service was built with what serves Envoy's rate-limit service ({@code quarkus-grpc} and
 * {@code jackson-dataformat-yaml}; added with {@link RlsServer} by {@code config/OptionalParts}): start-up asks for it,
 * without touching a class of those libraries, before it lets {@code slidegate.rls.enabled=true} pass.
 */
public class RlsSupport {
}
