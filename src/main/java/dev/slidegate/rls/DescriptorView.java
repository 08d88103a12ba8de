package dev.slidegate.rls;

import dev.slidegate.rls.proto.Descriptor;

/**
 * A descriptor as a plan resolver reads a request: each entry a header of its key (any case; the first of a key),
 * and the plans' header ({@code slidegate.plans.header}) the entry {@code slidegate.rls.plan-entry} names. Nothing
 * else of a request: no method, path, query, address or user.
 */
final class DescriptorView implements dev.slidegate.api.RequestView {
    private final Descriptor d;
    private final String planEntry;
    private final String planHeader;

    DescriptorView(Descriptor d, String planEntry, String planHeader) {
        this.d = d;
        this.planEntry = planEntry;
        this.planHeader = planHeader;
    }

    @Override
    public String header(String name) {
        String key = planEntry != null && name != null && name.equalsIgnoreCase(planHeader) ? planEntry : name;
        for (Descriptor.Entry e : d.getEntriesList()) {
            if (e.getKey().equalsIgnoreCase(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    @Override
    public String method() {
        return null;
    }

    @Override
    public String path() {
        return null;
    }

    @Override
    public String queryParam(String name) {
        return null;
    }

    @Override
    public String clientAddress() {
        return null;
    }

    @Override
    public String user() {
        return null;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return type.isInstance(d) ? type.cast(d) : null;
    }
}
