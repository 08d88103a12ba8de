package dev.slidegate.api;

/**
 * How a limit counted per period cuts time: a {@link Calendar} (days, weeks or months in a time zone). A limit with
 * periods counts the permits of the period an instant falls in, as a fixed window does, but its periods need not be of
 * one length (a month, a day with a change to or from summer time).
 */
public interface Periods {

    /** The start of the period that holds {@code micros} (µs since the epoch, inclusive). */
    long startOf(long micros);

    /** The end of the period that holds {@code micros} (exclusive): the start of the next one. */
    long endOf(long micros);

    /** The longest a period can be (µs): what a limit reports as its window, and keeps a key for at most. */
    long longestMicros();

    /** The name a limit is written with ({@code month}) and its periods are stored under: stable, without spaces. */
    String name();
}
