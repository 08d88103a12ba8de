package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.slidegate.api.RateLimited;

/** The service's one limited endpoint. */
@Path("/notes")
public class NoteResource {

    @GET
    @RateLimited(limits = "2/1m")
    public String list() {
        return "notes";
    }
}
