package io.reme.session;

import io.reme.json.Json;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The session header store's value format: a version byte, then the header's fields, flat, in a fixed
 * order (the one its parts list them in; the grouping into parts is not stored, so values written
 * before it read unchanged). The header is read and rewritten on every message (through the store's cache, which holds bytes),
 * so its JSON form cost the session processor more than storing the message itself. The JSON form
 * written before is still read (it starts with an opening brace), so existing stores and changelogs
 * restore. Counters are written by name, so adding one to {@link SessionCounters.Counter} anywhere
 * in the enum keeps older values readable.
 */
public final class SessionHeaderSerde implements Serde<SessionHeader> {
    /** The first byte of the binary form; JSON starts with an opening brace. */
    static final byte VERSION_1 = 1;
    /** Version 1 and the session's incarnation after the last field. */
    static final byte VERSION_2 = 2;

    @Override
    public Serializer<SessionHeader> serializer() {
        return (topic, value) -> value == null ? null : write(value);
    }

    @Override
    public Deserializer<SessionHeader> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                if (bytes.length > 0 && bytes[0] == '{') {
                    return Json.MAPPER.readValue(bytes, FlatJson.class).header();
                }
                if (bytes.length > 0 && (bytes[0] == VERSION_1 || bytes[0] == VERSION_2)) {
                    return read(new BinaryForm.Reader(bytes), bytes[0]);
                }
                throw new SerializationException(
                        "unknown session header format " + (bytes.length == 0 ? "" : bytes[0]));
            } catch (SerializationException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                throw new SerializationException("cannot read a session header from " + topic, e);
            }
        };
    }

    static byte[] write(SessionHeader h) {
        SessionHeader.Window window = h.window();
        BinaryForm.Writer out =
                new BinaryForm.Writer(256 + 9 * window.recentToolSeqs().size());
        out.writeByte(VERSION_2);
        SessionHeader.Compaction compaction = h.compaction();
        out.writeString(h.tenant());
        out.writeString(h.session());
        out.writeString(h.user());
        out.writeLong(window.nextSeq());
        out.writeLong(window.firstLiveSeq());
        out.writeInt(window.liveCount());
        out.writeLong(window.messageTokens());
        out.writeString(h.last().id());
        out.writeInstant(h.last().at());
        out.writeLong(h.last().activeMs());
        out.writeLong(h.diaryCoveredSeq());
        out.writeInt(window.recentToolSeqs().size());
        for (long seq : window.recentToolSeqs()) {
            out.writeLong(seq);
        }
        out.writeBoolean(compaction.planBlocked());
        out.writeLong(h.summary().tokens());
        out.writeInt(h.summary().version());
        out.writeInstant(h.summary().at());
        out.writeString(compaction.lastResolvedRequestId());
        out.writeLong(compaction.epoch());
        PendingCompaction pending = compaction.pending();
        out.writeBoolean(pending != null);
        if (pending != null) {
            out.writeString(pending.requestId());
            out.writeLong(pending.epoch());
            out.writeLong(pending.fromSeq());
            out.writeLong(pending.toSeq());
            out.writeInt(pending.messageCount());
            out.writeLong(pending.tokens());
            out.writeInstant(pending.requestedAt());
            out.writeInt(pending.unansweredCalls().size());
            for (String call : pending.unansweredCalls()) {
                out.writeString(call);
            }
        }
        out.writeInstant(compaction.nextAttemptAt());
        out.writeString(compaction.lastFailure());
        out.writeInstant(compaction.lastFailureAt());
        Map<SessionCounters.Counter, Long> counters = h.counters().values();
        out.writeInt(counters.size());
        for (Map.Entry<SessionCounters.Counter, Long> counter : counters.entrySet()) {
            out.writeString(counter.getKey().name());
            out.writeLong(counter.getValue());
        }
        out.writeLong(compaction.spanLimit());
        out.writeLong(compaction.incarnation());
        return out.bytes();
    }

    private static SessionHeader read(BinaryForm.Reader in, byte version) {
        String tenant = in.readString();
        String session = in.readString();
        String user = in.readString();
        long nextSeq = in.readLong();
        long firstLiveSeq = in.readLong();
        int liveCount = in.readInt();
        long messageTokens = in.readLong();
        String lastMessageId = in.readString();
        Instant lastMessageAt = in.readInstant();
        long lastActiveMs = in.readLong();
        long diaryCoveredSeq = in.readLong();
        int recentCount = in.readInt();
        List<Long> recent = new ArrayList<>(Math.min(recentCount, 1024));
        for (int i = 0; i < recentCount; i++) {
            recent.add(in.readLong());
        }
        boolean planBlocked = in.readBoolean();
        long summaryTokens = in.readLong();
        int summaryVersion = in.readInt();
        Instant lastSummaryAt = in.readInstant();
        String lastResolvedRequestId = in.readString();
        long epoch = in.readLong();
        PendingCompaction pending = null;
        if (in.readBoolean()) {
            String requestId = in.readString();
            long pendingEpoch = in.readLong();
            long fromSeq = in.readLong();
            long toSeq = in.readLong();
            int messageCount = in.readInt();
            long tokens = in.readLong();
            Instant requestedAt = in.readInstant();
            int calls = in.readInt();
            List<String> unanswered = new ArrayList<>(Math.min(calls, 1024));
            for (int i = 0; i < calls; i++) {
                unanswered.add(in.readString());
            }
            pending = new PendingCompaction(
                    requestId, pendingEpoch, fromSeq, toSeq, messageCount, tokens, requestedAt, unanswered);
        }
        Instant nextAttemptAt = in.readInstant();
        String lastFailure = in.readString();
        Instant lastFailureAt = in.readInstant();
        int counterCount = in.readInt();
        Map<SessionCounters.Counter, Long> counters = new EnumMap<>(SessionCounters.Counter.class);
        for (int i = 0; i < counterCount; i++) {
            String name = in.readString();
            long value = in.readLong();
            // A counter this version does not know (written by a newer one) is dropped, as JSON drops unknown fields.
            counterByName(name).ifPresent(c -> counters.put(c, value));
        }
        long spanLimit = in.readLong();
        long incarnation = version >= VERSION_2 ? in.readLong() : 0;
        in.end();
        return new SessionHeader(
                tenant,
                session,
                user,
                new SessionHeader.Window(nextSeq, firstLiveSeq, liveCount, messageTokens, recent),
                new SessionHeader.LastMessage(lastMessageId, lastMessageAt, lastActiveMs),
                diaryCoveredSeq,
                new SessionHeader.Summary(summaryTokens, summaryVersion, lastSummaryAt),
                new SessionHeader.Compaction(
                        epoch,
                        pending,
                        planBlocked,
                        lastResolvedRequestId,
                        nextAttemptAt,
                        lastFailure,
                        lastFailureAt,
                        spanLimit,
                        incarnation),
                new SessionCounters(counters));
    }

    /**
     * The JSON form headers were stored in before the binary one: the header's figures side by side,
     * by name. Read only; Jackson binds it by property name, as it bound the flat header it was written from.
     */
    private record FlatJson(
            String tenant,
            String session,
            String user,
            long nextSeq,
            long firstLiveSeq,
            int liveCount,
            long messageTokens,
            String lastMessageId,
            Instant lastMessageAt,
            long lastActiveMs,
            long diaryCoveredSeq,
            List<Long> recentToolSeqs,
            boolean planBlocked,
            long summaryTokens,
            int summaryVersion,
            Instant lastSummaryAt,
            String lastResolvedRequestId,
            long epoch,
            PendingCompaction pending,
            Instant nextAttemptAt,
            String lastFailure,
            Instant lastFailureAt,
            SessionCounters counters,
            long spanLimit) {
        SessionHeader header() {
            return new SessionHeader(
                    tenant,
                    session,
                    user,
                    new SessionHeader.Window(nextSeq, firstLiveSeq, liveCount, messageTokens, recentToolSeqs),
                    new SessionHeader.LastMessage(lastMessageId, lastMessageAt, lastActiveMs),
                    diaryCoveredSeq,
                    new SessionHeader.Summary(summaryTokens, summaryVersion, lastSummaryAt),
                    new SessionHeader.Compaction(
                            epoch,
                            pending,
                            planBlocked,
                            lastResolvedRequestId,
                            nextAttemptAt,
                            lastFailure,
                            lastFailureAt,
                            spanLimit,
                            0),
                    counters);
        }
    }

    private static Optional<SessionCounters.Counter> counterByName(String name) {
        for (SessionCounters.Counter c : SessionCounters.Counter.values()) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
