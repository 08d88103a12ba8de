package dev.slidegate.demo;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.slidegate.api.RateLimited;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import dev.slidegate.http.RateLimitApi;
import io.smallrye.mutiny.Uni;

/** The demo catalogue, limited per client address by the {@code products} policy. */
@Path("/api/products")
@Produces(MediaType.APPLICATION_JSON)
public class ProductResource {

    private final ProblemMappers problems;

    private final Warehouse warehouse;

    ProductResource(ProblemMappers problems, Warehouse warehouse) {
        this.problems = problems;
        this.warehouse = warehouse;
    }

    static final List<Product> CATALOGUE = List.of(
            new Product(1, "Espresso cup", new BigDecimal("6.50")),
            new Product(2, "Pour-over kettle", new BigDecimal("39.00")),
            new Product(3, "Burr grinder", new BigDecimal("129.00")),
            new Product(4, "Bag of beans, 1 kg", new BigDecimal("24.90")));

    @GET
    @RateLimited("products")
    @APIResponse(responseCode = "200", description = "Admitted; the RateLimit fields tell the remaining quota", headers = {
            @Header(name = "RateLimit", ref = "RateLimit"), @Header(name = "RateLimit-Policy", ref = "RateLimit-Policy") })
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public List<Product> list() {
        return CATALOGUE;
    }

    @GET
    @Path("{id}")
    @RateLimited("products")
    @APIResponse(responseCode = "200", description = "Admitted; the RateLimit fields tell the remaining quota", headers = {
            @Header(name = "RateLimit", ref = "RateLimit"), @Header(name = "RateLimit-Policy", ref = "RateLimit-Policy") })
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public Response get(@PathParam("id") int id) {
        return product(id).map(p -> Response.ok(p).build())
                .orElseGet(() -> noSuchProduct(id));
    }

    /**
     * Units in stock, asked of the {@link Warehouse}: this endpoint carries no limit of its own; the
     * warehouse's {@code warehouse} policy, shared by every caller, holds a call until the warehouse may be
     * asked (up to its {@code max-wait}) and answers 429 when that would take longer.
     */
    @GET
    @Path("{id}/stock")
    @APIResponse(responseCode = "200", description = "The units in stock")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public CompletionStage<Response> stock(@PathParam("id") int id) {
        if (product(id).isEmpty()) {
            return CompletableFuture.completedFuture(noSuchProduct(id));
        }
        return warehouse.unitsInStock(id).thenApply(stock -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", id);
            body.put("units", stock.units());
            body.put("askedAt", stock.askedAt().toString());
            return Response.ok(body).build();
        });
    }

    /** The same list, returned without blocking: the rate-limit decision never blocks the event loop. */
    @GET
    @Path("reactive")
    @RateLimited("products")
    @APIResponse(responseCode = "200", description = "Admitted; the RateLimit fields tell the remaining quota", headers = {
            @Header(name = "RateLimit", ref = "RateLimit"), @Header(name = "RateLimit-Policy", ref = "RateLimit-Policy") })
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public Uni<List<Product>> listReactive() {
        return Uni.createFrom().item(CATALOGUE);
    }

    private static java.util.Optional<Product> product(int id) {
        return CATALOGUE.stream().filter(p -> p.id() == id).findFirst();
    }

    private Response noSuchProduct(int id) {
        return problems.response(Problems.of(404, "Not Found", "not-found", "There is no product " + id + "."));
    }
}
