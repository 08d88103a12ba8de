package dev.slidegate.core;

/**
 * A store backend: both SPIs over one set of windows, as the in-process and the Redis stores provide
 * them. The service never sees it whole: decisions go through the {@link DecisionStore} stack (metering,
 * fail modes, remembered refusals), the admin through the {@link StoreInspection} stack (bounded, on
 * connections of its own).
 */
public interface LimiterStore extends DecisionStore, StoreInspection {
}
