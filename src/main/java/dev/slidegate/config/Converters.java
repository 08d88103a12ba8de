package dev.slidegate.config;

import org.eclipse.microprofile.config.spi.Converter;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Strategy;

/**
 * The converters of Slidegate's typed settings: SmallRye Config converts each value when the
 * configuration is read, and reports a bad one with its property, its value and the sentence the
 * parser says (every error at once). Each type has one parser, which annotations use too.
 */
public final class Converters {

    private Converters() {
    }

    /** {@code 100/1m}: see {@link Limit#parse}. */
    public static final class LimitConverter implements Converter<Limit> {
        @Override
        public Limit convert(String value) {
            return Limit.parse(value.trim());
        }
    }

    /** {@code sliding-log}, {@code fixed-window}, {@code sliding-counter}, {@code token-bucket}. */
    public static final class StrategyConverter implements Converter<Strategy> {
        @Override
        public Strategy convert(String value) {
            return Strategy.parse(value);
        }
    }

    /** {@code local}, {@code open}, {@code closed}. */
    public static final class FailModeConverter implements Converter<FailMode> {
        @Override
        public FailMode convert(String value) {
            return FailMode.parse(value);
        }
    }

    /** {@code ip}, {@code user}, {@code global}, {@code header:<Name>}...: see {@link KeySource#parse}. */
    public static final class KeySourceConverter implements Converter<KeySource> {
        @Override
        public KeySource convert(String value) {
            return KeySource.parse(value);
        }
    }

    /** {@code auto}, {@code memory}, {@code redis}. */
    public static final class StoreKindConverter implements Converter<StoreKind> {
        @Override
        public StoreKind convert(String value) {
            return StoreKind.parse(value);
        }
    }

    /** A time zone: an IANA region ({@code Europe/Berlin}) or {@code UTC}. */
    public static final class ZoneConverter implements Converter<java.time.ZoneId> {
        @Override
        public java.time.ZoneId convert(String value) {
            try {
                return java.time.ZoneId.of(value.trim());
            } catch (java.time.DateTimeException e) {
                throw new IllegalArgumentException("'" + value + "' is not a time zone: use a region such as Europe/Berlin "
                        + "or America/New_York, or UTC");
            }
        }
    }
}
