package io.reme.session;

import io.reme.context.ContextPlanner;
import io.reme.context.ContextPolicy;
import io.reme.context.Cut;
import io.reme.context.PlanEntry;
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
 *
 * <p>The summary and the messages served never exceed {@code maxInputLength} less the reserved
 * tokens. Compaction keeps the window below that, but while a compaction is in flight or failing
 * (an LLM outage) messages keep coming; then the oldest live messages are held back from the view
 * (they stay live and are compacted when the LLM answers), at a turn start if one fits, and
 * {@link Tokens#omittedMessages()} says how many.
 */
public record SessionView(
        String tenant,
        String session,
        String user,
        String summary,
        int summaryVersion,
        SummarySource summarySource,
        List<StoredMessage> messages,
        Tokens tokens,
        Compaction compaction) {

    /**
     * What the summary was made from: the session's messages {@code fromSeq} to {@code toSeq}, which left the
     * window into the dialog archive, where each line names its session and {@code seq}. Compactions take the
     * oldest live messages, so a summary always covers one run from the session's first message.
     */
    public record SummarySource(long fromSeq, long toSeq, long messages) {
        static SummarySource of(SessionHeader header) {
            long through = header.window().firstLiveSeq() - 1;
            return header.summaryVersion() == 0 || through < 0 ? null : new SummarySource(0, through, through + 1);
        }
    }

    /**
     * Token accounting of what is served: {@code total} is summary + messages, {@code usageRatio}
     * (total + reserved tokens) / maxInputLength, never above 1; {@code thresholdRatio} is all live
     * messages (served and omitted) / threshold; {@code omittedMessages} and {@code omittedTokens} are
     * the oldest live messages held back so the context fits the model.
     */
    public record Tokens(
            String encoding,
            long summary,
            long messages,
            long total,
            long threshold,
            long keepBudget,
            int maxInputLength,
            double usageRatio,
            double thresholdRatio,
            int omittedMessages,
            long omittedTokens) {}

    /**
     * The compaction in flight as a reader sees it: not its request id, which would let a reader with a Kafka
     * writer answer the request (results are signed too, but an id has no business leaving the pipeline).
     */
    public record Pending(
            long epoch,
            long fromSeq,
            long toSeq,
            int messageCount,
            long tokens,
            Instant requestedAt,
            List<String> unansweredCalls) {
        static Pending of(PendingCompaction pending) {
            return pending == null
                    ? null
                    : new Pending(
                            pending.epoch(),
                            pending.fromSeq(),
                            pending.toSeq(),
                            pending.messageCount(),
                            pending.tokens(),
                            pending.requestedAt(),
                            pending.unansweredCalls());
        }
    }

    /** Compaction state: what is in flight, what happened last, and the counters. */
    public record Compaction(
            Pending pending,
            Instant lastSummaryAt,
            Instant nextAttemptAt,
            String lastFailure,
            Instant lastFailureAt,
            long epoch,
            Map<SessionCounters.Counter, Long> counters) {}

    private static final int CONSISTENT_READ_ATTEMPTS = 5;

    /** Reads one session; empty if the session has no state on this instance. */
    public static Optional<SessionView> read(
            ReadOnlyKeyValueStore<String, SessionHeader> headers,
            ReadOnlyKeyValueStore<String, StoredMessage> messages,
            ReadOnlyKeyValueStore<String, String> summaries,
            SessionKey key,
            ContextPolicy policy,
            String encoding) {
        return read(headers, messages, summaries, key, policy, encoding, false);
    }

    /**
     * Reads one session; with {@code wholeWindow} every live message is in the view, even those held
     * back to keep the served context within the model's input (for inspection: the counts then say
     * what the window holds, and may exceed {@code maxInputLength} while a compaction is late).
     */
    public static Optional<SessionView> read(
            ReadOnlyKeyValueStore<String, SessionHeader> headers,
            ReadOnlyKeyValueStore<String, StoredMessage> messages,
            ReadOnlyKeyValueStore<String, String> summaries,
            SessionKey key,
            ContextPolicy policy,
            String encoding,
            boolean wholeWindow) {
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
        // Counted from the messages read, not the header's total: a message re-truncated between the two
        // reads has fewer tokens than the header still says, and the bound must hold for what is served.
        long liveTokens = 0;
        for (StoredMessage message : live) {
            liveTokens += message.tokens();
        }
        int omitted = wholeWindow ? 0 : omitted(live, liveTokens, policy.servedMessageBudget(header.summaryTokens()));
        long omittedTokens = 0;
        for (StoredMessage message : live.subList(0, omitted)) {
            omittedTokens += message.tokens();
        }
        live = live.subList(omitted, live.size());
        long served = liveTokens - omittedTokens;
        long total = header.summaryTokens() + served;
        Tokens tokens = new Tokens(
                encoding,
                header.summaryTokens(),
                served,
                total,
                threshold,
                policy.keepBudget(header.summaryTokens()),
                policy.maxInputLength(),
                (double) (total + policy.reservedTokens()) / policy.maxInputLength(),
                threshold <= 0 ? 1.0 : (double) liveTokens / threshold,
                omitted,
                omittedTokens);
        Compaction compaction = new Compaction(
                Pending.of(header.pending()),
                header.summary().at(),
                header.compaction().nextAttemptAt(),
                header.compaction().lastFailure(),
                header.compaction().lastFailureAt(),
                header.compaction().epoch(),
                header.counters().values());
        String summary = summaries.get(key.key());
        return Optional.of(new SessionView(
                header.tenant(),
                header.session(),
                header.user(),
                summary == null ? "" : summary,
                header.summaryVersion(),
                SummarySource.of(header),
                live,
                tokens,
                compaction));
    }

    /**
     * How many of the oldest messages to hold back so the rest fit {@code budget}: none when all fit;
     * else the fewest that leave a part starting at a turn, without a tool call apart from its result
     * (the planner's rule); else, when no such part fits, the fewest that leave any part that fits.
     */
    static int omitted(List<StoredMessage> live, long liveTokens, long budget) {
        if (liveTokens <= budget) {
            return 0;
        }
        List<PlanEntry> entries = live.stream().map(StoredMessage::planEntry).toList();
        Optional<Cut> cut = ContextPlanner.plan(entries, budget);
        if (cut.isPresent() && !cut.get().overBudget()) {
            return cut.get().compactCount();
        }
        long kept = liveTokens;
        int drop = 0;
        while (drop < live.size() && kept > budget) {
            kept -= live.get(drop).tokens();
            drop++;
        }
        return drop;
    }

    private static List<StoredMessage> liveMessages(
            ReadOnlyKeyValueStore<String, StoredMessage> messages, SessionKey key, SessionHeader header) {
        List<StoredMessage> live = new ArrayList<>(header.liveCount());
        SessionHeader.Window window = header.window();
        if (window.nextSeq() <= window.firstLiveSeq()) {
            return live;
        }
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(window.firstLiveSeq()), key.messageKey(window.nextSeq() - 1))) {
            it.forEachRemaining(entry -> live.add(entry.value));
        }
        return live;
    }
}
