package dev.slidegate.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a {@link RateLimited} method whose value ({@code String.valueOf}) is the
 * caller's key, for beans called outside HTTP: {@code void send(@RateLimitKey String tenant, ...)}.
 * It takes precedence over the policy's key source. A {@code null} argument is refused with an error.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface RateLimitKey {
}
