package dev.slidegate.http;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.core.serialization.EntityWriter;
import org.jboss.resteasy.reactive.server.core.serialization.FixedEntityWriter;
import org.jboss.resteasy.reactive.server.providers.serialisers.ServerByteArrayMessageBodyHandler;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.config.SlidegateConfig;

/**
 * Turns Slidegate's exceptions into RFC 9457 problem responses: 429, 400 and 503, never a stack trace; and builds
 * every problem response Slidegate sends ({@link #response}). Requests the service's own endpoints could not read
 * are the service's: they get problem bodies only with {@code slidegate.http.problem-bodies=all}
 * ({@link UnreadableRequests}).
 */
@Singleton
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
    private static final MediaType PROBLEM = MediaType.valueOf(Problem.CONTENT_TYPE);

    /**
     * {@code slidegate.http.fixed-problem-writer}: refusals skip RESTEasy's run-time writer lookup. Turned off (once, with
     * a warning) should a RESTEasy Reactive version lack the internals it uses.
     */
    private boolean fixedWriter;
    /** RESTEasy's own byte-array writer, chosen once (the first refusal); {@code null} until then. */
    private volatile EntityWriter writer;
    /** The latest refusal's body of each policy, reused while refusals are alike. */
    private final RefusalBodies refusals = new RefusalBodies();
    /** {@link #json}, as the refusals' bodies are written (one function, not one per refusal). */
    private final java.util.function.Function<Problem, byte[]> writeJson = this::json;

    @Inject
    ProblemMappers(SlidegateConfig config) {
        this.fixedWriter = config.http().fixedProblemWriter();
    }

    /** For tests of the body alone. */
    ProblemMappers() {
        this.fixedWriter = false;
    }

    /**
     * Refuses a request in a REST filter with {@code problem} ({@link #response}); the answer still passes the
     * service's own response filters and writer interceptors. With {@code slidegate.http.fixed-problem-writer} (the
     * default) its body is written by RESTEasy Reactive's byte-array writer chosen once, as an endpoint returning
     * {@code byte[]} is, instead of a writer looked up per answer among every writer of the service: that lookup (for a
     * type with a {@code +}) was most of what a refusal allocated. A response filter that replaces the body gets the
     * run-time lookup back (RESTEasy resets the writer then).
     */
    public void abort(ResteasyReactiveContainerRequestContext request, Problem problem) {
        abort(request, response(problem));
    }

    /**
     * Refuses a request in a REST filter with the 429 of {@code e}
     * ({@link #abort(ResteasyReactiveContainerRequestContext, Problem)}).
     */
    public void refuse(ResteasyReactiveContainerRequestContext request, RateLimitExceededException e) {
        RefusalBodies.Body b = refusals.of(e, writeJson);
        abort(request, b.response(ProblemMappers::response));
    }

    private void abort(ResteasyReactiveContainerRequestContext request, Response response) {
        if (fixedWriter) {
            fixWriter(request);
        }
        request.abortWith(response);
    }

    private void fixWriter(ResteasyReactiveContainerRequestContext request) {
        try {
            if (request.getServerRequestContext() instanceof ResteasyReactiveRequestContext c) {
                c.setEntityWriter(writer(c)); // before abortWith, which may resume the request on another thread
            }
        } catch (LinkageError e) { // a RESTEasy Reactive that changed them: its own lookup writes the body, as it did
            fixedWriter = false;
            LOG.warnf("Slidegate: this RESTEasy Reactive lacks what slidegate.http.fixed-problem-writer uses (%s);"
                    + " refusals' bodies are written by RESTEasy's own writer lookup", e.toString());
        }
    }

    private EntityWriter writer(ResteasyReactiveRequestContext c) {
        EntityWriter w = writer;
        if (w == null) {
            w = new FixedEntityWriter(new ServerByteArrayMessageBodyHandler(), c.getDeployment().getSerialisers());
            writer = w;
        }
        return w;
    }

    /** The response carrying {@code problem}: its status, Retry-After when it has one, and its JSON ({@link #json}). */
    public Response response(Problem problem) {
        return response(problem, json(problem));
    }

    private static Response response(Problem problem, byte[] json) {
        Response.ResponseBuilder r = Response.status(problem.status()).type(PROBLEM).entity(json);
        if (problem.retryAfter() != null) {
            r.header(HttpHeaders.RETRY_AFTER, problem.retryAfter());
        }
        return r.build();
    }

    /** Sends {@code problem} as the answer of a request handled outside the REST layer (a route handler). */
    public void send(io.vertx.core.http.HttpServerResponse response, Problem problem) {
        send(response, problem, json(problem));
    }

    /** Sends the 429 of {@code e} as the answer of a request handled outside the REST layer. */
    public void refuse(io.vertx.core.http.HttpServerResponse response, RateLimitExceededException e) {
        RefusalBodies.Body b = refusals.of(e, writeJson);
        send(response, b.problem(), b.json());
    }

    private static void send(io.vertx.core.http.HttpServerResponse response, Problem problem, byte[] json) {
        response.setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.CONTENT_TYPE);
        if (problem.retryAfter() != null) {
            response.putHeader(HttpHeaders.RETRY_AFTER, Long.toString(problem.retryAfter()));
        }
        response.end(io.vertx.core.buffer.Buffer.buffer(json));
    }

    /**
     * {@code problem} as JSON: its members in order, those without a value left out, byte for byte what Jackson's object
     * mapper writes for the record ({@code ProblemJsonProperties}), written straight into one array: no generator, no
     * context, no copy per refused request (a refusal allocated 12 KB more than an admitted call in a native host), and
     * no setting of the service's own Jackson (a naming strategy) renames the documented members ({@code retryAfter}).
     */
    byte[] json(Problem problem) {
        Json j = new Json();
        write(j, problem); // counted first (writing nothing), then written into an array of the exact size: one allocation
        j.out = new byte[j.n];
        j.n = 0;
        write(j, problem);
        return j.out;
    }

    private static void write(Json j, Problem problem) {
        j.put('{');
        j.string("type", problem.type());
        j.string("title", problem.title());
        j.number("status", problem.status());
        j.string("detail", problem.detail());
        j.string("policy", problem.policy());
        j.string("limit", problem.limit());
        if (problem.retryAfter() != null) {
            j.number("retryAfter", problem.retryAfter());
        }
        if (problem.violatedPolicies() != null) {
            j.strings("violated-policies", problem.violatedPolicies());
        }
        j.put('}');
    }

    /** A JSON object written as UTF-8, escaping as Jackson does by default. */
    private static final class Json {
        private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        /** Where the bytes go; {@code null} while only counting them. */
        byte[] out;
        int n;

        void put(int b) {
            if (out != null) {
                out[n] = (byte) b;
            }
            n++;
        }

        private void name(String name) {
            if (n > 1) {
                put(',');
            }
            put('"');
            for (int i = 0; i < name.length(); i++) {
                put(name.charAt(i));
            }
            put('"');
            put(':');
        }

        void number(String name, long value) {
            name(name);
            if (value < 0) { // (no problem says a negative number; written as Jackson would)
                String v = Long.toString(value);
                for (int i = 0; i < v.length(); i++) {
                    put(v.charAt(i));
                }
                return;
            }
            long digit = 1;
            while (digit <= value / 10) {
                digit *= 10;
            }
            for (; digit > 0; digit /= 10) {
                put('0' + (int) (value / digit % 10));
            }
        }

        void strings(String name, java.util.List<String> values) {
            name(name);
            put('[');
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    put(',');
                }
                quoted(values.get(i));
            }
            put(']');
        }

        void string(String name, String value) {
            if (value == null) {
                return;
            }
            name(name);
            quoted(value);
        }

        private void quoted(String value) {
            put('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c < 0x80) {
                    ascii(c);
                } else if (c < 0x800) {
                    put(0xc0 | c >> 6);
                    put(0x80 | c & 0x3f);
                } else if (Character.isSurrogate(c)) { // each half escaped, as Jackson's generator does by default
                    put('\\');
                    put('u');
                    put(HEX[c >> 12]);
                    put(HEX[c >> 8 & 0xf]);
                    put(HEX[c >> 4 & 0xf]);
                    put(HEX[c & 0xf]);
                } else {
                    put(0xe0 | c >> 12);
                    put(0x80 | c >> 6 & 0x3f);
                    put(0x80 | c & 0x3f);
                }
            }
            put('"');
        }

        private void ascii(char c) {
            switch (c) {
                case '"', '\\' -> {
                    put('\\');
                    put(c);
                }
                case '\b' -> escaped('b');
                case '\t' -> escaped('t');
                case '\n' -> escaped('n');
                case '\f' -> escaped('f');
                case '\r' -> escaped('r');
                default -> {
                    if (c < 0x20) {
                        put('\\');
                        put('u');
                        put('0');
                        put('0');
                        put(HEX[c >> 4]);
                        put(HEX[c & 0xf]);
                    } else {
                        put(c);
                    }
                }
            }
        }

        private void escaped(char c) {
            put('\\');
            put(c);
        }
    }

    @ServerExceptionMapper
    public Response tooManyRequests(RateLimitExceededException e) {
        return refusals.of(e, writeJson).response(ProblemMappers::response);
    }

    @ServerExceptionMapper
    public Response missingKey(MissingRateLimitKeyException e) {
        return response(Problems.missingKey(e.policy(), e.getMessage()));
    }

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        LOG.debugf("Rate-limit store unavailable: %s", e.getMessage()); // the breaker logs outages once, not per request
        return response(Problems.storeUnavailable());
    }
}
