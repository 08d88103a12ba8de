package dev.slidegate.testing;

import dev.slidegate.api.Periods;

/**
 * Periods of unequal lengths repeating from an origin (µs): a stand-in for calendar periods (months of 28 to 31 days,
 * days of 23 or 25 hours) short enough that a test sees many of them go by on a real clock, so that the Redis scripts
 * pick periods by the server's own clock, checked against the reference.
 *
 * @param origin an instant at which a period starts
 * @param lengths the lengths of the periods in one cycle, each at least 1 ms
 */
public record IrregularPeriods(long origin, long[] lengths, String name) implements Periods {

    private long cycle() {
        long c = 0;
        for (long l : lengths) {
            c += l;
        }
        return c;
    }

    @Override
    public long startOf(long micros) {
        long cycle = cycle();
        long base = origin + Math.floorDiv(micros - origin, cycle) * cycle;
        for (long l : lengths) {
            if (micros < base + l) {
                return base;
            }
            base += l;
        }
        return base;
    }

    @Override
    public long endOf(long micros) {
        long start = startOf(micros);
        long cycle = cycle();
        long base = origin + Math.floorDiv(start - origin, cycle) * cycle;
        for (long l : lengths) {
            if (base == start) {
                return start + l;
            }
            base += l;
        }
        throw new IllegalStateException("unreachable");
    }

    @Override
    public long longestMicros() {
        long most = 0;
        for (long l : lengths) {
            most = Math.max(most, l);
        }
        return most;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IrregularPeriods p && p.origin == origin && java.util.Arrays.equals(p.lengths, lengths)
                && p.name.equals(name);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(lengths) * 31 + Long.hashCode(origin) + name.hashCode();
    }

    @Override
    public String toString() {
        return name + java.util.Arrays.toString(lengths);
    }
}
