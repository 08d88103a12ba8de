package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.jboss.logging.Logger;

/** Logs a line of the service's own, as the service wrote it. */
@Path("/host/log")
public class HostLog {

    private static final Logger LOG = Logger.getLogger("example.host");

    @GET
    public String log(@QueryParam("text") String text) {
        LOG.info(text);
        return "logged";
    }
}
