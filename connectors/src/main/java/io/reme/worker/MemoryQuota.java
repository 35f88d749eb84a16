package io.reme.worker;

/**
 * How many more memories a tenant may have, asked by the LLM workers once per extraction before
 * they write its new memories (updates of existing memories never count). A seam because the
 * tenants' policies and the index that counts their memories live in the app, not here.
 */
@FunctionalInterface
public interface MemoryQuota {
    /** No limit: workers that cannot see the tenants' policies (the separate {@code workers} process). */
    MemoryQuota NONE = tenant -> Room.UNLIMITED;

    /** The tenant's memories as counted now and its limit; must not throw (an unknown count is unlimited). */
    Room room(String tenant);

    /** A tenant's memories and the most its policy allows. */
    record Room(long memories, long limit) {
        public static final Room UNLIMITED = new Room(0, Long.MAX_VALUE);

        /** How many new memories fit. */
        public long free() {
            return Math.max(0, limit - memories);
        }
    }
}
