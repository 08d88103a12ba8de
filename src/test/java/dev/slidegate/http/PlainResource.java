package dev.slidegate.http;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Endpoints without any annotation: only configuration can limit them. */
@Path("/test/plain")
public class PlainResource {

    @GET
    @Path("{id}")
    public String get(@PathParam("id") String id) {
        return id;
    }

    @POST
    @Path("{id}")
    public String post(@PathParam("id") String id) {
        return id;
    }

    @GET
    @Path("both/{id}")
    public String both(@PathParam("id") String id) {
        return id;
    }

    @GET
    @Path("files/{a}/{b}")
    public String file(@PathParam("a") String a, @PathParam("b") String b) {
        return a + "/" + b;
    }
}
