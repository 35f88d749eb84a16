package io.reme.session;

import io.reme.erasure.Erasure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmResult;
import io.reme.message.Message;
import io.reme.session.SessionCounters.Counter;
import io.reme.tokens.TokenCounter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session window's rules over its stores, the one entry the two session processors call: append
 * a message, check and apply a worker's result, sweep what time passing does, erase a user. Each job
 * has a class of its own over one view of the task's stores ({@link TaskStores}): cutting and counting
 * tool outputs ({@link ToolOutputs}), planning and applying compactions ({@link CompactionPlanner},
 * {@link CompactionResults}), diary spans ({@link DiarySpans}), archiving ({@link Archiver}), the
 * activity index and its sweeps ({@link ActivityIndex}, {@link Sweeps}) and erasure
 * ({@link SessionEraser}).
 *
 * <p>Used by one stream thread at a time (the task's); all time comes from records or the processor's
 * clock, never the wall clock. The header is always written last, so a failure mid-way never leaves
 * totals that count messages that are not stored.
 */
final class SessionState {
    private static final Logger LOG = LoggerFactory.getLogger(SessionState.class);

    private final TaskStores stores;
    private final TenantSessionSettings tenants;
    private final SessionOutputs outputs;
    private final ToolOutputs toolOutputs;
    private final ActivityIndex activity;
    private final DiarySpans diary;
    private final CompactionPlanner planner;
    private final CompactionResults results;
    private final Sweeps sweeps;
    private final SessionEraser eraser;

    /**
     * @param tenantsStore the tenants' global store whose policies set a tenant's session settings, or
     *     null for none (every tenant runs under {@code settings})
     */
    SessionState(
            TaskStores stores,
            SessionSettings settings,
            TokenCounter tokens,
            SessionOutputs outputs,
            ReadOnlyKeyValueStore<String, byte[]> tenantsStore) {
        this.stores = stores;
        this.tenants = new TenantSessionSettings(settings, tenantsStore);
        this.outputs = outputs;
        this.toolOutputs = new ToolOutputs(stores.messages(), settings.truncation(), tokens, outputs);
        this.activity = new ActivityIndex(stores.activity());
        this.diary = new DiarySpans(stores, settings, outputs);
        Archiver archiver =
                new Archiver(stores.messages(), diary, outputs, settings.input().zone());
        this.planner = new CompactionPlanner(stores, settings, outputs, diary, activity);
        this.results = new CompactionResults(stores, settings, tenants, tokens, outputs, archiver, planner, activity);
        this.sweeps = new Sweeps(stores, settings, tenants, activity, diary, planner, archiver);
        this.eraser = new SessionEraser(stores, outputs, activity, diary);
    }

    /**
     * The rules over the session stores of the task that {@code context} belongs to.
     *
     * @param tenantsStore the name of the tenants' global store whose policies set a tenant's session
     *     settings, or null for none (every tenant runs under {@code settings})
     */
    static SessionState attach(
            ProcessorContext<?, ?> context,
            SessionSettings settings,
            TokenCounter tokens,
            SessionOutputs outputs,
            String tenantsStore) {
        return new SessionState(
                TaskStores.attach(context, settings.input().dedup()),
                settings,
                tokens,
                outputs,
                tenantsStore == null ? null : context.getStateStore(tenantsStore));
    }

    /**
     * Appends one validated message to its session's window: a retry of a recent message is counted
     * and dropped, tool outputs that left the recent window are cut to the old limit, and the session
     * is compacted if it is now over its threshold.
     *
     * @param timestamp the record's time
     * @param processingMs the processor's clock, which idle detection is measured against
     * @param offset the record's offset in its input partition, which a new session's incarnation is made of
     *     (-1: unknown)
     */
    void append(Message message, long timestamp, long processingMs, long offset) {
        SessionKey key = new SessionKey(message.tenant(), message.session());
        SessionHeader header = stores.headers().get(key.key());
        if (header == null) {
            header = SessionHeader.begunAt(message.tenant(), message.session(), message.user(), offset);
        }
        if (message.id().equals(header.last().id())
                || stores.recentIds()
                        .contains(key, message.id(), header.window().nextSeq(), processingMs)) {
            stores.headers().put(key.key(), header.withCounter(Counter.DUPLICATE_MESSAGES, 1));
            return;
        }
        List<Long> recent = header.window().recentToolSeqs();
        if (!message.hasToolResults() && !recent.isEmpty()) {
            header = toolOutputs.age(key, header, timestamp);
            recent = List.of();
        }
        long seq = header.window().nextSeq();
        ToolOutputs.Stored stored = toolOutputs.onAppend(key, seq, message, timestamp);
        if (stored.ages()) {
            List<Long> longer = new ArrayList<>(recent);
            longer.add(seq);
            recent = longer;
        }
        stores.messages().put(key.messageKey(seq), new StoredMessage(seq, stored.tokens(), stored.message()));
        stores.recentIds().remember(key, message.id(), seq, processingMs);
        outputs.messageIn(key.tenant(), stored.tokens());
        activity.active(key, header.lastActiveMs(), processingMs);
        header = header.withAppended(stored.tokens(), message.id(), message.time(), processingMs, recent)
                .withCounter(Counter.TRUNCATED_OUTPUTS, stored.cut());
        header = planner.maybeCompact(
                key,
                header,
                Instant.ofEpochMilli(timestamp),
                message.startsTurn(),
                timestamp,
                tenants.of(key.tenant(), processingMs));
        stores.headers().put(key.key(), header);
    }

    /**
     * Whether a result may be applied ({@link CompactionResults#check}): signed by the workers and, for a COMPACT
     * result, of a request the session's current incarnation issued.
     */
    CompactionResults.Verdict check(SessionKey key, LlmResult result, boolean signed) {
        return results.check(key, result, signed);
    }

    /**
     * Applies a worker's result if it answers what the session waits for; anything else is counted and
     * dropped.
     *
     * @param processingMs the processor's clock, which a failed diary span's backoff is measured on
     */
    void apply(SessionKey key, LlmResult result, long timestamp, long processingMs) {
        SessionHeader header = stores.headers().get(key.key());
        if (header == null) {
            LOG.warn(
                    "result for unknown session dropped tenant={} session={} requestId={}",
                    key.tenant(),
                    key.session(),
                    result.requestId());
            return;
        }
        if (result.kind() == LlmKind.COMPACT) {
            results.apply(key, header, result, timestamp, processingMs);
        } else {
            diary.applyOutcome(key, header, result, timestamp, processingMs);
        }
    }

    /** What real time passing does to the task's sessions, as of {@code nowMs} ({@link Sweeps}). */
    void sweep(long nowMs) {
        sweeps.sweep(nowMs);
    }

    /** Erases the sessions {@code erasure} covers from the task's stores ({@link SessionEraser}). */
    SessionEraser.Erased erase(Erasure erasure, long timestamp) {
        return eraser.erase(erasure, timestamp);
    }
}
