package dev.slidegate.entry;

import jakarta.enterprise.context.ApplicationScoped;

import dev.slidegate.api.RateLimited;

/** {@code @RateLimited} on a class: both methods draw from one policy; the method-level one replaces it. */
@ApplicationScoped
@RateLimited(value = "bean-class", limits = "2/1h", key = "global")
public class ClassLimitedService {

    public String a() {
        return "a";
    }

    public String b() {
        return "b";
    }

    @RateLimited(value = "bean-class-own", limits = "1/1h", key = "global")
    public String own() {
        return "own";
    }
}
