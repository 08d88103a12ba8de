package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** The service's own admin pages, at the path Slidegate's demo uses for its admin. */
@Path("/admin")
public class HostAdmin {

    @GET
    public String home() {
        return "the service's own admin";
    }

    @GET
    @Path("users")
    public String users() {
        return "the service's own users";
    }
}
