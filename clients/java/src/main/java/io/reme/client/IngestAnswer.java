package io.reme.client;

import java.util.List;

/**
 * What {@code POST /v1/messages} wrote: one record per message, in order.
 *
 * @param accepted how many messages were written
 * @param records where each was written
 */
public record IngestAnswer(int accepted, List<Written> records) {
    public IngestAnswer {
        records = records == null ? List.of() : List.copyOf(records);
    }

    /**
     * One record on the input topic.
     *
     * @param key its key, {@code tenant/session}
     * @param partition its partition
     * @param offset its offset
     */
    public record Written(String key, int partition, long offset) {}
}
