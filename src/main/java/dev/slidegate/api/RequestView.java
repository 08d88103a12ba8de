package dev.slidegate.api;

/**
 * The HTTP request a call answers, as Slidegate's resolvers see it ({@link KeyResolver}, {@link PlanResolver},
 * {@link CostResolver}): its line, headers and query, the client as Slidegate identifies it and the authenticated user.
 * It holds no framework type, so a resolver is tested without a server ({@code RequestView} is an interface) and keeps
 * working whichever HTTP layer Quarkus runs.
 */
public interface RequestView {

    /** The method, e.g. {@code GET}. */
    String method();

    /** The path, normalised as routed (no query), e.g. {@code /api/items/42}. */
    String path();

    /** The first value of header {@code name} (any case), or {@code null}. */
    String header(String name);

    /** The first value of query parameter {@code name}, or {@code null}. */
    String queryParam(String name);

    /**
     * The client's address as the key {@code ip} counts it: the peer, or the address a trusted proxy named
     * ({@code slidegate.trusted-proxies}), IPv6 clients by their /64; e.g. {@code 203.0.113.7}.
     */
    String clientAddress();

    /** The authenticated caller's name, or {@code null} when anonymous. */
    String user();

    /**
     * The HTTP layer's own request, for what this view lacks: {@code unwrap(io.vertx.ext.web.RoutingContext.class)}.
     * Code that uses it depends on that layer.
     *
     * @throws IllegalArgumentException when the request is not a {@code type}
     */
    <T> T unwrap(Class<T> type);
}
