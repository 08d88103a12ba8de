package dev.slidegate.http;

import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;

/** A service's own OpenAPI filter, named in {@code mp.openapi.filter} by the {@code SmallLimits} profile. */
public class ServiceOpenApiFilter implements OASFilter {

    @Override
    public void filterOpenAPI(OpenAPI api) {
        api.addExtension("x-service-filter", "applied");
    }
}
