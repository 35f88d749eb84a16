package io.reme.worker;

import io.reme.erasure.Erasure;
import io.reme.indexstore.EmbeddingSwitch;
import io.reme.indexstore.MemoryErasure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the {@link MemoryReembedder} knows of one partition of {@code memories} and what each record read there asks
 * of it: where the partition began and ends, how far it is read, the last switch seen, the rewrites not read back
 * yet and the findings of the {@link #keyPass key pass}. It decides; the re-embedder embeds and writes, and tells it
 * what it wrote ({@link #rewriting}).
 *
 * <p>Mutable, and not thread-safe: used on the re-embedder's loop thread only, from the partition's assignment
 * until its revocation.
 */
final class ReembedPartition {
    /**
     * Separates, in the committed offsets' metadata, the profile the offsets were read for and the last switch
     * seen: a change of model reads each partition again from its start, not from where the last change ended.
     */
    private static final String METADATA_SEPARATOR = "\n";

    private final long begin;
    private long end;
    private long position;
    private String lastSwitch;
    private final Map<String, InFlight> inFlight = new HashMap<>();
    /** Where the key pass ended: below it, {@link #latest} decides; from it on, the records in flight. */
    private final long keysEnd;
    /** The key pass's findings, dropped once the partition is read past {@link #keysEnd}. */
    private Map<String, Latest> latest;

    /** A rewrite written but not read back yet: its source offset, and a later record of its key, if one came. */
    private record InFlight(long source, ConsumerRecord<String, byte[]> later) {}

    /**
     * What the key pass found of one key: the offset of its last record; of the record that carries its current
     * content (its last memory or tombstone, or a rewrite made from that); and whether the last record is a stale
     * rewrite, made from an older record than the current one, whose content must then be said again.
     */
    record Latest(long offset, long current, boolean stale) {
        Latest then(ConsumerRecord<String, byte[]> next, Header from) {
            if (from == null) {
                return new Latest(next.offset(), next.offset(), false);
            }
            return offsetIn(from) == current
                    ? new Latest(next.offset(), next.offset(), false)
                    : new Latest(next.offset(), current, true);
        }
    }

    /** The key pass of one partition, where it ended, and its reader (to read shadowed content again with). */
    record KeyPass(Map<String, Latest> latest, long end, KafkaConsumer<String, byte[]> reader) {}

    /**
     * What a record read asks of the re-embedder: the profile's vectors for it if its memory lacks them, or, when
     * {@code sayAgain}, its content written again after a stale rewrite that shadows it.
     */
    record Ask(ConsumerRecord<String, byte[]> record, boolean sayAgain) {}

    private ReembedPartition(long begin, long position, String lastSwitch, long keysEnd, Map<String, Latest> latest) {
        this.begin = begin;
        this.end = Math.max(position, keysEnd);
        this.position = position;
        this.lastSwitch = lastSwitch;
        this.keysEnd = keysEnd;
        this.latest = latest;
    }

    /** A partition read from {@code position} on, with what its key pass found. */
    ReembedPartition(long begin, long position, String lastSwitch, KeyPass keys) {
        this(begin, position, lastSwitch, keys.end(), keys.latest());
    }

    /** A partition switched to the profile before and with nothing new since: no key pass needed. */
    static ReembedPartition switched(long begin, long position, String lastSwitch) {
        return new ReembedPartition(begin, position, lastSwitch, position, null);
    }

    /** The last switch a commit's metadata names; null for none. */
    static String lastSwitchIn(OffsetAndMetadata committed) {
        String[] metadata = metadata(committed);
        return metadata.length == 2 && !metadata[1].isEmpty() ? metadata[1] : null;
    }

    /** Whether the committed offset was read for another profile: then the partition is read from its start. */
    static boolean readForAnother(OffsetAndMetadata committed, String profile) {
        String[] metadata = metadata(committed);
        return committed != null && (metadata.length != 2 || !metadata[0].equals(profile));
    }

    private static String[] metadata(OffsetAndMetadata committed) {
        return committed == null || committed.metadata() == null
                ? new String[0]
                : committed.metadata().split(METADATA_SEPARATOR, -1);
    }

    /** The offset to commit: the position, with the profile it was read for and the last switch seen. */
    OffsetAndMetadata committable(String profile) {
        return new OffsetAndMetadata(position, profile + METADATA_SEPARATOR + (lastSwitch == null ? "" : lastSwitch));
    }

    /**
     * Reads the partition's keys and headers to its end ({@link Latest}); the values are not parsed. The caller
     * closes the pass's reader.
     */
    static KeyPass keyPass(Map<String, Object> clientProps, TopicPartition tp) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        KafkaConsumer<String, byte[]> reader =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        try {
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            long end = reader.endOffsets(List.of(tp)).get(tp);
            Map<String, Latest> latest = new HashMap<>();
            while (reader.position(tp) < end) {
                for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= end || r.key() == null || isControl(r)) {
                        continue;
                    }
                    Latest before = latest.get(r.key());
                    // A rewrite whose source is gone (compacted) carries the current content itself.
                    latest.put(
                            r.key(),
                            before == null
                                    ? new Latest(r.offset(), r.offset(), false)
                                    : before.then(r, r.headers().lastHeader(MemoryReembedder.REEMBEDDED_FROM)));
                }
            }
            return new KeyPass(latest, end, reader);
        } catch (RuntimeException e) {
            reader.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            throw e;
        }
    }

    /**
     * The offsets, in order, of the current content that stale rewrites shadow and that lies before {@code from}
     * (the scan will not read it again): a crash came between such a rewrite and its reading back.
     */
    List<Long> shadowedBefore(long from) {
        return latest.values().stream()
                .filter(l -> l.stale() && l.current() < from)
                .map(Latest::current)
                .sorted()
                .toList();
    }

    /**
     * What one record of the partition asks for, or null for nothing; a switch is remembered, and a rewrite read
     * back is no longer in flight.
     */
    Ask read(ConsumerRecord<String, byte[]> record, boolean lastOfKey) {
        if (EmbeddingSwitch.isSwitch(record.headers())) {
            lastSwitch = EmbeddingSwitch.profileOf(record.headers());
            return null;
        }
        if (record.key() == null || isControl(record)) {
            return null;
        }
        Header from = record.headers().lastHeader(MemoryReembedder.REEMBEDDED_FROM);
        if (latest != null && record.offset() < keysEnd) {
            // Read before: the key pass knows whether this is the key's latest content, and what follows it.
            Latest found = latest.get(record.key());
            if (found == null || found.current() != record.offset()) {
                return null;
            }
            return new Ask(record, found.stale());
        }
        InFlight flight = inFlight.get(record.key());
        if (from != null) {
            if (flight == null || flight.source() != offsetIn(from)) {
                // A rewrite the key pass already judged, or a duplicate: its content is the source's.
                return null;
            }
            inFlight.remove(record.key());
            // The key changed after the rewrite's source: say the later record again, after the rewrite.
            return flight.later() == null ? null : new Ask(flight.later(), true);
        }
        if (flight != null) {
            inFlight.put(record.key(), new InFlight(flight.source(), record));
            return null;
        }
        return lastOfKey ? new Ask(record, false) : null;
    }

    /** A switch, an erasure or an expunge: no memory of its own. */
    private static boolean isControl(ConsumerRecord<String, byte[]> record) {
        return EmbeddingSwitch.isSwitch(record.headers())
                || Erasure.isErasure(record.headers())
                || MemoryErasure.isExpunge(record.headers());
    }

    /** A rewrite of {@code key} made from the record at {@code source} is on its way. */
    void rewriting(String key, long source) {
        inFlight.put(key, new InFlight(source, null));
    }

    /** The partition is read up to {@code next}; the key pass's findings go once it is read past them. */
    void readTo(long next) {
        position = next;
        if (position >= keysEnd) {
            latest = null;
        }
    }

    void endAt(long offset) {
        end = offset;
    }

    /** Read to its end, with no rewrite still to be read back (a later edit may have to be said again). */
    boolean caughtUp() {
        return inFlight.isEmpty() && position >= end;
    }

    void switched(String profile) {
        lastSwitch = profile;
    }

    String lastSwitch() {
        return lastSwitch;
    }

    long begin() {
        return begin;
    }

    long position() {
        return position;
    }

    /**
     * Offsets of the partition as it was when this pass began (up to {@link #keysEnd}): what the change has to
     * read. Its own rewrites, appended after, are not counted, so the share read grows with the memories
     * re-embedded instead of halving when every memory has been rewritten once.
     */
    long total() {
        return keysEnd - begin;
    }

    long scanned() {
        return Math.min(position, keysEnd) - begin;
    }

    private static long offsetIn(Header from) {
        return Long.parseLong(new String(from.value(), StandardCharsets.UTF_8));
    }
}
