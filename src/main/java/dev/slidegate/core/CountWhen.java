package dev.slidegate.core;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which calls of a policy count ({@code slidegate.policies.<name>.count-when}): a call is admitted against its cost and,
 * once its outcome is known, charged the cost when the outcome matches one of the conditions, refunded in full when it
 * does not. A condition is an HTTP status ({@code 401}), a class of statuses ({@code 4xx}), or an exception type by its
 * fully qualified name ({@code java.io.IOException}: the exception the call ended with, or one of its causes, is of that
 * class or a subclass).
 *
 * <p>
 * The outcome of an HTTP endpoint is the status of its answer; of a bean method or a REST client call, how it returned: a
 * {@code jakarta.ws.rs.core.Response} its status, a {@code WebApplicationException} (a REST client's answer of 4xx or
 * 5xx) the status it carries, another exception 500 and its type, a plain return 200. A call whose outcome is not known
 * (its client went away before the answer was done, a stream cancelled) counts: a caller never makes a call free by
 * leaving.
 */
public final class CountWhen {

    private static final Pattern STATUS = Pattern.compile("[1-5][0-9][0-9]");
    private static final Pattern CLASS = Pattern.compile("[1-5]xx");
    private static final Pattern TYPE = Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+");

    /** The status of an outcome that is not known (the call did not finish). */
    public static final int UNKNOWN = -1;

    private final List<String> conditions;
    /** Bit {@code s} set: status {@code s} counts (100 to 599). */
    private final boolean[] statuses = new boolean[600];
    private final List<String> types = new ArrayList<>();

    private CountWhen(List<String> conditions) {
        this.conditions = List.copyOf(conditions);
        for (String c : conditions) {
            if (STATUS.matcher(c).matches()) {
                statuses[Integer.parseInt(c)] = true;
            } else if (CLASS.matcher(c).matches()) {
                int from = (c.charAt(0) - '0') * 100;
                for (int s = from; s < from + 100; s++) {
                    statuses[s] = true;
                }
            } else {
                types.add(c);
            }
        }
    }

    /**
     * Reads the conditions of {@code count-when}.
     *
     * @throws IllegalArgumentException naming the first that is none, in one sentence
     */
    public static CountWhen parse(List<String> conditions) {
        if (conditions.isEmpty()) {
            throw new IllegalArgumentException("it names no outcome: expected statuses (401), classes of status (4xx) or "
                    + "exception types (java.io.IOException), e.g. count-when=401,403");
        }
        List<String> read = new ArrayList<>();
        for (String raw : conditions) {
            String c = raw.trim();
            if (c.length() > 200 || !(STATUS.matcher(c).matches() || CLASS.matcher(c).matches() || TYPE.matcher(c).matches())) {
                throw new IllegalArgumentException("'" + (c.length() > 40 ? c.substring(0, 40) + "..." : c)
                        + "' is no outcome: expected a status from 100 to 599 (401), a class of status (4xx) or an "
                        + "exception type by its full name (java.io.IOException)");
            }
            read.add(c);
        }
        return new CountWhen(read);
    }

    /** The conditions as configured. */
    public List<String> conditions() {
        return conditions;
    }

    /**
     * Whether a call that ended so counts.
     *
     * @param status the status of its outcome, or {@link #UNKNOWN} when the call did not finish (always counts)
     * @param thrown the exception it ended with, or {@code null}
     */
    public boolean counts(int status, Throwable thrown) {
        if (status == UNKNOWN) {
            return true;
        }
        if (status >= 100 && status < 600 && statuses[status]) {
            return true;
        }
        int depth = 0;
        for (Throwable t = thrown; t != null && depth++ < 16; t = t.getCause()) { // (a loop of causes ends)
            for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
                if (types.contains(c.getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return String.join(",", conditions);
    }
}
