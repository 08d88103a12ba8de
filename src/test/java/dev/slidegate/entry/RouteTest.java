package dev.slidegate.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;

class RouteTest {

    @Path("/api/items/")
    static class Items {
        @GET
        @Path("{id}")
        public String one() {
            return "";
        }

        @GET
        @Path("/{id: [0-9]+}/parts/{part}/")
        public String part() {
            return "";
        }

        @GET
        public String all() {
            return "";
        }
    }

    static class NotAResource {
        public void work() {
        }
    }

    @Test
    void routesAreTemplatesWithNamedParameters() throws Exception {
        assertEquals("/api/items/:id", MethodShape.route(Items.class.getMethod("one"), "Items#one"));
        assertEquals("/api/items/:id/parts/:part", MethodShape.route(Items.class.getMethod("part"), "Items#part"));
        assertEquals("/api/items", MethodShape.route(Items.class.getMethod("all"), "Items#all"));
        assertEquals("NotAResource.work", MethodShape.route(NotAResource.class.getMethod("work"), "NotAResource#work"));
    }
}
