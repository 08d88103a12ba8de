package dev.slidegate.core;

/** An override for a new target beyond {@code slidegate.overrides.max}: refused, nothing changed. */
public final class TooManyOverridesException extends RuntimeException {

    public TooManyOverridesException(int most) {
        super("There are " + most + " overrides, the most slidegate.overrides.max allows: remove some (expired ones included) "
                + "or raise it", null, false, false);
    }
}
