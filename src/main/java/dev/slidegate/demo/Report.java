package dev.slidegate.demo;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** A report of the demo API. */
@RegisterForReflection
public record Report(String id, String title, String period) {
}
