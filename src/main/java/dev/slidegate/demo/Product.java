package dev.slidegate.demo;

import java.math.BigDecimal;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** A product of the demo catalogue. */
@RegisterForReflection
public record Product(int id, String name, BigDecimal price) {
}
