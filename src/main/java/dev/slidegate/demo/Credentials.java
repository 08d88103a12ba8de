package dev.slidegate.demo;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The body of {@code POST /api/login}. */
@RegisterForReflection
public record Credentials(String username, String password) {
}
