package io.reme.indexstore;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The record on a partition of the {@code memories} topic after which that partition's index searches with
 * another embedding profile. The re-embedder writes it once every memory before it carries the profile's
 * vectors, so an index that applies the topic in order switches exactly when its vectors are complete: never
 * before (a restart mid-change keeps the old profile), never to a half-built graph. Its key is the same on every
 * partition and its value the profile, so compaction keeps the latest switch of each partition, after the
 * re-embedded memories it vouches for.
 */
public final class EmbeddingSwitch {
    /** The header naming the profile; its presence marks the record. */
    public static final String HEADER = "reme.embedding-switch";
    /** The key of every switch: not a {@code tenant/id}, so no memory can have it. */
    public static final String KEY = "~embedding-switch";

    private EmbeddingSwitch() {}

    public static boolean isSwitch(Headers headers) {
        return headers != null && headers.lastHeader(HEADER) != null;
    }

    /** The profile a switch record switches to. */
    public static String profileOf(Headers headers) {
        Header header = headers.lastHeader(HEADER);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** The headers of a switch to {@code profile}. */
    public static Headers headers(String profile) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HEADER, profile.getBytes(StandardCharsets.UTF_8));
        return headers;
    }

    /** The value of a switch to {@code profile}: not empty, so compaction never takes it for a tombstone. */
    public static byte[] value(String profile) {
        return profile.getBytes(StandardCharsets.UTF_8);
    }
}
