package example;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

/** The service's own errors: a body-less 400, and a JSON body it cannot read. */
@Path("/host")
public class HostErrors {

    public record Item(String name, int quantity) {
    }

    @GET
    @Path("bad")
    public String bad() {
        throw new BadRequestException();
    }

    @POST
    @Path("items")
    @Consumes(MediaType.APPLICATION_JSON)
    public String add(Item item) {
        return item.name();
    }
}
