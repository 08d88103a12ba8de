package dev.slidegate.core;

/** The one {@link Clock#system()} that {@link Clock#ioNanoTime()} reads, whatever clock asks. */
final class RealTime {

    static final Clock CLOCK = Clock.system();

    private RealTime() {
    }
}
