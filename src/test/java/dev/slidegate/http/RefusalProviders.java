package dev.slidegate.http;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyWriter;
import jakarta.ws.rs.ext.Provider;

import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * A service's own providers that meet Slidegate's refusals: a response filter that stamps or replaces an answer when the
 * request asks for it ({@code X-Stamp}, {@code X-Replace}), and a writer of {@code application/problem+json} bodies that
 * claims them while a test says so ({@link #claim}).
 */
public class RefusalProviders {

    /** While set, {@link ProblemBodyWriter} claims every {@code byte[]} problem body RESTEasy looks a writer up for. */
    static volatile boolean claim;

    @ServerResponseFilter
    public void stamp(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getHeaderString("X-Stamp") != null) {
            response.getHeaders().putSingle("X-Seen-Status", response.getStatus());
        }
        if (request.getHeaderString("X-Replace") != null) {
            response.setEntity("replaced by the service", null, MediaType.TEXT_PLAIN_TYPE);
        }
    }

    /** A service's writer for problem bodies, preferred by RESTEasy's lookup over its built-in byte-array writer. */
    @Provider
    @Produces("application/problem+json")
    public static class ProblemBodyWriter implements MessageBodyWriter<byte[]> {

        @Override
        public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
            return claim && type == byte[].class;
        }

        @Override
        public void writeTo(byte[] body, Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType,
                MultivaluedMap<String, Object> headers, OutputStream out) throws IOException {
            out.write("{\"written-by\":\"the service\"}".getBytes(StandardCharsets.UTF_8));
        }
    }
}
