package dev.slidegate.http;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.PlanResolver;

/** A replacement PlanResolver for {@code PlanSwitchTest}: the plan is whatever the X-Plan header says. */
@Alternative
@Singleton
public class HeaderPlans implements PlanResolver {

    @Override
    public String plan(KeyResolver.Call call) {
        return call.request() == null ? null : call.request().header("X-Plan");
    }
}
