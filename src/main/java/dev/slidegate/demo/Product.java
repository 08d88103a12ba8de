package dev.slidegate.demo;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.math.BigDecimal;

/** A product of the demo catalogue. */
@RegisterForReflection
public record Product(int id, String name, BigDecimal price) {
}
