package dev.slidegate.http;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.quarkus.arc.properties.IfBuildProperty;

/**
 * Problem bodies for requests the service's own endpoints could not read: present only when the service asks for
 * them ({@code slidegate.http.problem-bodies=all}, read when it is built), since otherwise these answers are the
 * service's, and a mapper of its own for the same exceptions must not compete with one of Slidegate's.
 */
final class UnreadableRequests {

    private UnreadableRequests() {
    }

    /**
     * A request the framework could not read (malformed JSON, a bad parameter) answered with an empty 400: the
     * client's error, said in a problem body. Every other answer as the framework meant it.
     */
    @Provider
    @IfBuildProperty(name = "slidegate.http.problem-bodies", stringValue = "all")
    public static final class BodylessBadRequest implements ExceptionMapper<WebApplicationException> {

        private final ProblemMappers problems;

        BodylessBadRequest(ProblemMappers problems) {
            this.problems = problems;
        }

        @Override
        public Response toResponse(WebApplicationException e) {
            if (e.getResponse().getStatus() != 400 || e.getResponse().hasEntity()) {
                return e.getResponse();
            }
            Throwable cause = e.getCause();
            return cause instanceof JsonProcessingException json ? badJson(problems, json)
                    : badRequest(problems, "The request could not be read"
                            + (cause == null || cause.getMessage() == null ? "." : ": " + cause.getMessage()));
        }
    }

    /** A JSON body of the wrong shape (an array for an object, a string for a number). */
    @Provider
    @IfBuildProperty(name = "slidegate.http.problem-bodies", stringValue = "all")
    public static final class MisshapedJson implements ExceptionMapper<MismatchedInputException> {

        private final ProblemMappers problems;

        MisshapedJson(ProblemMappers problems) {
            this.problems = problems;
        }

        @Override
        public Response toResponse(MismatchedInputException e) {
            return badJson(problems, e);
        }
    }

    static Response badJson(ProblemMappers problems, JsonProcessingException e) {
        return badRequest(problems, "The request body is not valid JSON of the expected shape: " + e.getOriginalMessage());
    }

    static Response badRequest(ProblemMappers problems, String detail) {
        return problems.response(Problems.of(400, "Bad Request", "bad-request", detail));
    }
}
