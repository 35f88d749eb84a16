package io.reme.session;

import io.reme.context.ContextPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What an agent gets back for a session: its summary, live messages and token accounting, plus
 * the state of compaction. Read from the stores through interactive queries.
 */
public record SessionView(
        String tenant,
        String session,
        String user,
        String summary,
        int summaryVersion,
        List<StoredMessage> messages,
        Tokens tokens,
        Compaction compaction) {

    /** Token accounting: {@code usageRatio} is total / maxInputLength, {@code thresholdRatio} messages / threshold. */
    public record Tokens(String encoding, long summary, long messages, long total, long threshold, long keepBudget,
            int maxInputLength, double usageRatio, double thresholdRatio) {
    }

    /** Compaction state: what is in flight, what happened last, and the counters. */
    public record Compaction(PendingCompaction pending, Instant lastSummaryAt, Instant nextAttemptAt,
            String lastFailure, Instant lastFailureAt, long epoch, Map<SessionCounters.Counter, Long> counters) {
    }

    private static final int CONSISTENT_READ_ATTEMPTS = 5;

    /** Reads one session; empty if the session has no state on this instance. */
    public static Optional<SessionView> read(ReadOnlyKeyValueStore<String, SessionHeader> headers,
            ReadOnlyKeyValueStore<String, StoredMessage> messages, ReadOnlyKeyValueStore<String, String> summaries,
            SessionKey key, ContextPolicy policy, String encoding) {
        // The stream thread writes the header and the messages one after the other while this reads, so
        // the messages are bounded by the header's sequence range and the read is repeated if a
        // compaction removed some of them in between: the view always agrees with its own token counts.
        SessionHeader header = null;
        List<StoredMessage> live = List.of();
        for (int attempt = 0; attempt < CONSISTENT_READ_ATTEMPTS; attempt++) {
            header = headers.get(key.key());
            if (header == null) {
                return Optional.empty();
            }
            live = liveMessages(messages, key, header);
            if (live.size() == header.liveCount()) {
                break;
            }
        }
        long threshold = policy.threshold(header.summaryTokens());
        long total = header.summaryTokens() + header.messageTokens();
        Tokens tokens = new Tokens(encoding, header.summaryTokens(), header.messageTokens(), total, threshold,
                policy.keepBudget(header.summaryTokens()), policy.maxInputLength(),
                (double) (total + policy.reservedTokens()) / policy.maxInputLength(),
                threshold <= 0 ? 1.0 : (double) header.messageTokens() / threshold);
        Compaction compaction = new Compaction(header.pending(), header.lastSummaryAt(), header.nextAttemptAt(),
                header.lastFailure(), header.lastFailureAt(), header.epoch(), header.counters().values());
        String summary = summaries.get(key.key());
        return Optional.of(new SessionView(header.tenant(), header.session(), header.user(), summary == null ? "" : summary,
                header.summaryVersion(), live, tokens, compaction));
    }

    private static List<StoredMessage> liveMessages(ReadOnlyKeyValueStore<String, StoredMessage> messages,
            SessionKey key, SessionHeader header) {
        List<StoredMessage> live = new ArrayList<>(header.liveCount());
        if (header.nextSeq() <= header.firstLiveSeq()) {
            return live;
        }
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(header.firstLiveSeq()), key.messageKey(header.nextSeq() - 1))) {
            it.forEachRemaining(entry -> live.add(entry.value));
        }
        return live;
    }
}
