package io.reme.session;

import io.reme.context.ContextPlanner;
import io.reme.context.ContextPolicy;
import io.reme.context.Cut;
import io.reme.context.PlanEntry;
import io.reme.context.PlanLimits;
import io.reme.erasure.Erasure;
import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.llm.MessageSpan;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.metrics.PipelineMetrics.Compaction;
import io.reme.session.SessionCounters.Counter;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import io.reme.toolresult.ToolResultTruncator;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session window's rules over its stores: append a message (truncating tool outputs),
 * plan and request a compaction when over threshold, and apply or reject LLM results. Used by one
 * stream thread at a time (the task's); all time comes from records, never the wall clock. The
 * header is always written last, so a failure mid-way never leaves totals that count messages that
 * are not stored.
 */
final class SessionState {
    private static final Logger LOG = LoggerFactory.getLogger(SessionState.class);
    private static final String EXPIRY_PREFIX = "x";
    /**
     * The index of sessions with a compaction to look at again at a time (a failed one's backoff, a
     * pending one's timeout), so that a quiet session is re-planned without waiting for a message.
     */
    private static final String RETRY_PREFIX = "r";

    private static final int MAX_AGING_COUNTS = 1_024;
    /** What a diary span asks of the workers, in one record: the diary update and its EXTRACT twin. */
    private static final List<LlmKind> DIARY_KINDS = List.of(LlmKind.DIARY, LlmKind.EXTRACT);

    private final KeyValueStore<String, SessionHeader> headers;
    private final KeyValueStore<String, StoredMessage> messages;
    private final KeyValueStore<String, String> activity;
    private final KeyValueStore<String, String> summaries;
    private final KeyValueStore<String, DiarySpan> diarySpans;
    private final SessionSettings settings;
    /** The settings per tenant, where a tenant's policy sets its window, idle period or retention. */
    private final TenantSessionSettings tenants;
    /** The conversation's date, which names the dialog file a message is archived in. */
    private final DateTimeFormatter day;

    private final TokenCounter tokens;
    private final ToolResultTruncator truncator = new ToolResultTruncator();
    private final SessionOutputs outputs;
    private final RecentMessageIds recentIds;
    /**
     * Message key → the counts of its tool outputs' first characters, taken on append (see
     * {@link #countForAging}) and used once, when the outputs age, usually a message later. Only a
     * shortcut: the count is exact with or without it, so it is not stored and starts empty after a
     * restart. Bounded, for sessions that end on a tool output and never age it.
     */
    private final Map<String, TokenCounter.Prefix[]> agingCounts = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TokenCounter.Prefix[]> eldest) {
            return size() > MAX_AGING_COUNTS;
        }
    };

    SessionState(
            KeyValueStore<String, SessionHeader> headers,
            KeyValueStore<String, StoredMessage> messages,
            KeyValueStore<String, String> summaries,
            KeyValueStore<String, String> activity,
            KeyValueStore<String, DiarySpan> diarySpans,
            SessionSettings settings,
            TokenCounter tokens,
            SessionOutputs outputs,
            RecentMessageIds recentIds,
            ReadOnlyKeyValueStore<String, byte[]> tenantsStore) {
        this.headers = headers;
        this.messages = messages;
        this.summaries = summaries;
        this.diarySpans = diarySpans;
        this.activity = activity;
        this.settings = settings;
        this.tenants = new TenantSessionSettings(settings, tenantsStore);
        this.day = DateTimeFormatter.ISO_LOCAL_DATE.withZone(settings.zone());
        this.tokens = tokens;
        this.outputs = outputs;
        this.recentIds = recentIds;
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
                context.getStateStore(SessionStores.HEADERS),
                context.getStateStore(SessionStores.MESSAGES),
                context.getStateStore(SessionStores.SUMMARIES),
                context.getStateStore(SessionStores.ACTIVITY),
                context.getStateStore(SessionStores.DIARY_SPANS),
                settings,
                tokens,
                outputs,
                new RecentMessageIds(context.getStateStore(SessionStores.MESSAGE_IDS), settings.dedup()),
                tenantsStore == null ? null : context.getStateStore(tenantsStore));
    }

    /**
     * Appends one validated message to its session's window.
     *
     * @param timestamp the record's time
     * @param processingMs the processor's clock, which idle detection is measured against
     */
    void append(Message message, long timestamp, long processingMs) {
        SessionKey key = new SessionKey(message.tenant(), message.session());
        SessionHeader header = headers.get(key.key());
        if (header == null) {
            header = SessionHeader.empty(message.tenant(), message.session(), message.user());
        }
        if (message.id().equals(header.lastMessageId())
                || recentIds.contains(key, message.id(), header.nextSeq(), processingMs)) {
            headers.put(key.key(), header.withCounter(Counter.DUPLICATE_MESSAGES, 1));
            return;
        }
        Instant now = Instant.ofEpochMilli(timestamp);
        List<Long> recent = header.recentToolSeqs();
        if (!message.hasToolResults() && !recent.isEmpty()) {
            header = ageToolOutputs(key, header, timestamp);
            recent = List.of();
        }
        long seq = header.nextSeq();
        Truncated truncated = truncate(key, seq, message, settings.truncation().recentBytes(), timestamp);
        int count;
        if (message.hasToolResults()
                && exceeds(truncated.message(), settings.truncation().oldBytes())) {
            List<Long> longer = new ArrayList<>(recent);
            longer.add(seq);
            recent = longer;
            count = countForAging(key, seq, truncated.message());
        } else {
            count = tokens.count(truncated.message());
        }
        messages.put(key.messageKey(seq), new StoredMessage(seq, count, truncated.message()));
        recentIds.remember(key, message.id(), seq, processingMs);
        outputs.messageIn(key.tenant(), count);
        // The activity index keeps whole seconds: a session's next messages within the same second find
        // their entry in place and rewrite nothing.
        String active = activityKey(activitySecond(processingMs), key);
        if (activitySecond(header.lastActiveMs()) != activitySecond(processingMs) || activity.get(active) == null) {
            forgetActivity(key, header.lastActiveMs());
            activity.put(active, "");
        }
        header = header.withAppended(count, message.id(), message.time(), processingMs, recent)
                .withCounter(Counter.TRUNCATED_OUTPUTS, truncated.count());
        header =
                maybeCompact(key, header, now, message.startsTurn(), timestamp, tenants.of(key.tenant(), processingMs));
        headers.put(key.key(), header);
    }

    /**
     * Whether a result may be applied: it carries the workers' signature ({@code signed}) and, for a
     * COMPACT result, names a request this deployment could have issued for its epoch (the ID is keyed by
     * the request secret). A forged one is counted and logged, and must not be applied.
     */
    boolean authentic(SessionKey key, LlmResult result, boolean signed) {
        if (signed
                && (result.kind() != LlmKind.COMPACT
                        || settings.requestSecret().issued(compactionName(key, result.epoch()), result.requestId()))) {
            return true;
        }
        LOG.warn(
                "forged result refused tenant={} session={} requestId={} epoch={} signed={}",
                key.tenant(),
                key.session(),
                result.requestId(),
                result.epoch(),
                signed);
        SessionHeader header = headers.get(key.key());
        if (header != null) {
            headers.put(key.key(), header.withCounter(Counter.FORGED_RESULTS, 1));
        }
        return false;
    }

    /**
     * Applies a worker's result if it answers the pending request; anything else is counted and dropped.
     *
     * @param processingMs the processor's clock, which a failed diary span's backoff is measured on
     */
    void apply(SessionKey key, LlmResult result, long timestamp, long processingMs) {
        SessionHeader header = headers.get(key.key());
        if (header == null) {
            LOG.warn(
                    "result for unknown session dropped tenant={} session={} requestId={}",
                    key.tenant(),
                    key.session(),
                    result.requestId());
            return;
        }
        if (result.kind() != LlmKind.COMPACT) {
            applyDiaryOutcome(key, header, result, timestamp, processingMs);
            return;
        }
        PendingCompaction pending = header.pending();
        if (pending == null || !pending.matches(result.requestId(), result.epoch())) {
            boolean duplicate = result.requestId().equals(header.lastResolvedRequestId());
            LOG.debug(
                    "{} result dropped tenant={} session={} requestId={} epoch={}",
                    duplicate ? "duplicate" : "stale",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    result.epoch());
            headers.put(
                    key.key(), header.withCounter(duplicate ? Counter.DUPLICATE_RESULTS : Counter.STALE_RESULTS, 1));
            return;
        }
        Instant now = Instant.ofEpochMilli(timestamp);
        if (result.status() == LlmStatus.FAILED) {
            LOG.warn(
                    "compaction failed tenant={} session={} requestId={} attempts={} failure={} error={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    result.attempts(),
                    result.failure(),
                    result.error());
            header = header.withFailed(
                    String.valueOf(result.error()), now, now.plus(settings.retryBackoff()), Counter.COMPACTIONS_FAILED);
            if (result.failure() == LlmFailure.CONTEXT_LENGTH) {
                // The same span would be refused again: the next one (after the backoff) is half as long.
                long limit = Math.max(1, pending.tokens() / 2);
                LOG.warn(
                        "compaction span halved tenant={} session={} requestId={} refusedTokens={} spanLimit={}",
                        key.tenant(),
                        key.session(),
                        result.requestId(),
                        pending.tokens(),
                        limit);
                header = header.withSpanLimit(limit).withCounter(Counter.SPANS_SHRUNK, 1);
            }
            headers.put(key.key(), header);
            scheduleRetry(key, header.nextAttemptAt());
            outputs.compaction(key.tenant(), Compaction.FAILED);
            return;
        }
        SessionSettings local = tenants.of(key.tenant(), processingMs);
        List<String> problems = SummaryFormat.problems(result.payload(), tokens, local.summaryBudget(key.tenant()));
        if (!problems.isEmpty()) {
            String problem = String.join("; ", problems);
            LOG.warn(
                    "invalid summary rejected tenant={} session={} requestId={} problem={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    problem);
            headers.put(
                    key.key(),
                    header.withFailed(
                            "invalid summary: " + problem,
                            now,
                            now.plus(settings.retryBackoff()),
                            Counter.INVALID_SUMMARIES));
            scheduleRetry(key, now.plus(settings.retryBackoff()));
            outputs.compaction(key.tenant(), Compaction.INVALID_SUMMARY);
            return;
        }
        Archived archived = archive(key, pending.fromSeq(), pending.toSeq(), pending.requestId(), timestamp);
        summaries.put(key.key(), result.payload());
        header = header.withApplied(tokens.count(result.payload()), archived.count(), archived.tokens(), now);
        if (!pending.unansweredCalls().isEmpty()) {
            // Said once, here: the calls have left the window with this compaction and cannot come back.
            LOG.warn(
                    "tool calls compacted without their results tenant={} session={} requestId={} calls={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    String.join(",", pending.unansweredCalls()));
            header = header.withCounter(
                    Counter.UNANSWERED_CALLS, pending.unansweredCalls().size());
        }
        outputs.compaction(key.tenant(), Compaction.APPLIED);
        LOG.info(
                "compaction applied tenant={} session={} requestId={} epoch={} archived={} archivedTokens={} "
                        + "summaryTokens={} liveTokens={}",
                key.tenant(),
                key.session(),
                result.requestId(),
                result.epoch(),
                archived.count(),
                archived.tokens(),
                header.summaryTokens(),
                header.messageTokens());
        header = maybeCompact(key, header, now, true, timestamp, local);
        headers.put(key.key(), header);
    }

    /**
     * Requests a compaction when the window is over its threshold and nothing is in flight. A request
     * pending longer than the timeout is abandoned (its late result becomes stale) and re-planned.
     */
    private SessionHeader maybeCompact(
            SessionKey key,
            SessionHeader header,
            Instant now,
            boolean turnStarted,
            long timestamp,
            SessionSettings local) {
        PendingCompaction pending = header.pending();
        if (pending != null) {
            if (!now.isAfter(pending.requestedAt().plus(settings.pendingTimeout()))) {
                return header;
            }
            LOG.warn(
                    "compaction timed out tenant={} session={} requestId={} epoch={}",
                    key.tenant(),
                    key.session(),
                    pending.requestId(),
                    pending.epoch());
            header = header.withTimedOut("no result within " + settings.pendingTimeout(), now);
            outputs.compaction(key.tenant(), Compaction.TIMED_OUT);
        }
        if (header.nextAttemptAt() != null && now.isBefore(header.nextAttemptAt())) {
            return header;
        }
        ContextPolicy policy = local.policyFor(key.tenant());
        if (!policy.overThreshold(header.messageTokens(), header.summaryTokens())) {
            return header;
        }
        if (header.planBlocked() && !turnStarted) {
            return header;
        }
        List<StoredMessage> window = window(key, header);
        List<PlanEntry> entries = new ArrayList<>(window.size());
        for (StoredMessage stored : window) {
            Message message = stored.message();
            entries.add(new PlanEntry(
                    stored.seq(),
                    message.startsTurn(),
                    stored.tokens(),
                    message.toolUseIds(),
                    message.toolResultIds()));
        }
        Optional<Cut> cut = ContextPlanner.plan(
                entries,
                policy.keepBudget(header.summaryTokens()),
                PlanLimits.of(policy, header.summaryTokens(), header.spanLimit()));
        if (cut.isEmpty()) {
            // INFO when the window first blocks, DEBUG while it stays blocked turn after turn.
            if (header.planBlocked()) {
                LOG.debug(
                        "over threshold but still no valid cut tenant={} session={} liveTokens={}",
                        key.tenant(),
                        key.session(),
                        header.messageTokens());
            } else {
                LOG.info(
                        "over threshold but no valid cut tenant={} session={} liveTokens={} liveMessages={}",
                        key.tenant(),
                        key.session(),
                        header.messageTokens(),
                        header.liveCount());
            }
            return header.withPlanBlocked(true).withCounter(Counter.NO_VALID_CUT, 1);
        }
        List<Message> span = MessageSpan.of(window.subList(0, cut.get().compactCount()).stream()
                .map(StoredMessage::message)
                .toList());
        long epoch = header.epoch() + 1;
        String requestId = settings.requestSecret().requestId(compactionName(key, epoch));
        long fromSeq = window.get(0).seq();
        long toSeq = cut.get().lastCompactedSeq();
        List<String> unanswered = List.copyOf(cut.get().unansweredCalls());
        LlmRequest compact = new LlmRequest(
                requestId,
                epoch,
                LlmKind.COMPACT,
                key.tenant(),
                key.session(),
                header.user(),
                fromSeq,
                toSeq,
                span,
                summary(key),
                settings.language(),
                0,
                now,
                local.summaryBudget(key.tenant()),
                unanswered);
        outputs.request(key, compact, timestamp);
        outputs.compaction(key.tenant(), Compaction.REQUESTED);
        header = requestDiary(key, header, compact, span, timestamp);
        LOG.info(
                "compaction requested tenant={} session={} requestId={} epoch={} messages={} tokens={} keptTokens={} "
                        + "unansweredCalls={}",
                key.tenant(),
                key.session(),
                requestId,
                epoch,
                span.size(),
                cut.get().compactedTokens(),
                cut.get().keptTokens(),
                unanswered.size());
        scheduleRetry(key, now.plus(settings.pendingTimeout()));
        return header.withPending(new PendingCompaction(
                        requestId, epoch, fromSeq, toSeq, span.size(), cut.get().compactedTokens(), now, unanswered))
                .withCounter(Counter.COMPACTIONS_REQUESTED, 1);
    }

    /**
     * Sends the part of a compaction's span that no diary span holds yet (all of it, unless the
     * session went idle in between), with the compaction's request ID and epoch, for a diary update
     * and for memory extraction. Both go out with the compaction request rather than when its result
     * is applied: the span is the same dialog however the compaction ends. The span is kept until
     * both succeeded (see {@link #applyDiaryOutcome}), so neither reads a message twice and a failure
     * skips nothing.
     */
    private SessionHeader requestDiary(
            SessionKey key, SessionHeader header, LlmRequest compact, List<Message> span, long timestamp) {
        long from = Math.max(compact.fromSeq(), diaryRequestedSeq(key, header) + 1);
        if (from > compact.toSeq()) {
            return header;
        }
        int skip = (int) (from - compact.fromSeq());
        LlmRequest diary = new LlmRequest(
                compact.requestId(),
                compact.epoch(),
                LlmKind.DIARY,
                compact.tenant(),
                compact.session(),
                compact.user(),
                from,
                compact.toSeq(),
                skip == 0 ? span : span.subList(skip, span.size()),
                "",
                compact.language(),
                0,
                compact.createdAt());
        sendDiarySpan(key, diary, timestamp);
        return header;
    }

    private void sendDiarySpan(SessionKey key, LlmRequest diary, long timestamp) {
        diarySpans.put(key.messageKey(diary.fromSeq()), DiarySpan.sent(diary));
        // One record for both: the span travels once, and the worker answers each kind on its own.
        outputs.request(key, diary.asking(DIARY_KINDS), timestamp);
    }

    /** The last sequence number a diary span holds, settled or not (-1: none). */
    private long diaryRequestedSeq(SessionKey key, SessionHeader header) {
        long last = header.diaryCoveredSeq();
        for (DiarySpan span : diarySpans(key)) {
            last = Math.max(last, span.request().toSeq());
        }
        return last;
    }

    /** The session's unsettled spans, oldest first. */
    private List<DiarySpan> diarySpans(SessionKey key) {
        List<DiarySpan> spans = new ArrayList<>();
        try (KeyValueIterator<String, DiarySpan> it =
                diarySpans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
            it.forEachRemaining(entry -> spans.add(entry.value));
        }
        return spans;
    }

    /**
     * A DIARY or EXTRACT result for one of the session's spans. OK settles that kind; FAILED keeps the
     * span and schedules it again after the backoff, or after {@code maxFailures} (or at once, refused as
     * longer than the model's context) dead-letters it.
     * Coverage then moves over the settled spans at the front, never past an unsettled one.
     */
    private void applyDiaryOutcome(
            SessionKey key, SessionHeader header, LlmResult result, long timestamp, long processingMs) {
        String spanKey = null;
        DiarySpan span = null;
        try (KeyValueIterator<String, DiarySpan> it =
                diarySpans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
            while (it.hasNext() && span == null) {
                KeyValue<String, DiarySpan> entry = it.next();
                if (entry.value.request().requestId().equals(result.requestId())) {
                    spanKey = entry.key;
                    span = entry.value;
                }
            }
        }
        if (span == null || span.progress(result.kind()) != DiarySpan.Progress.SENT) {
            // Settled already, or waiting to be sent again: a re-delivered answer.
            LOG.debug(
                    "{} result dropped tenant={} session={} requestId={}",
                    result.kind(),
                    key.tenant(),
                    key.session(),
                    result.requestId());
            headers.put(key.key(), header.withCounter(Counter.DUPLICATE_RESULTS, 1));
            return;
        }
        // The sweep that sends it again runs on the processor's clock, so the backoff is measured on it too.
        Instant now = Instant.ofEpochMilli(processingMs);
        if (result.status() == LlmStatus.OK) {
            span = span.with(result.kind(), DiarySpan.Progress.SETTLED);
        } else {
            span = span.withFailure(
                    result.kind(),
                    String.valueOf(result.error()),
                    now.plus(settings.diaryRetry().after(span.failures() + 1)));
            header = header.withCounter(Counter.DIARY_FAILURES, 1);
            // The worker halves a refused span down to single messages: a refusal left means one message
            // is longer than the model's context, and sending it again cannot succeed.
            boolean hopeless = result.failure() == LlmFailure.CONTEXT_LENGTH;
            if (hopeless || span.failures() >= settings.diaryRetry().maxFailures()) {
                // Only the kinds that failed: one still in flight may yet succeed, and is given up on its own.
                header = deadLetterSpan(
                        key,
                        header,
                        span,
                        DiarySpan.Progress.FAILED,
                        hopeless
                                ? "a message is longer than the model's context: " + span.lastError()
                                : "gave up after " + span.failures() + " failures: " + span.lastError(),
                        timestamp);
                for (LlmKind kind : DIARY_KINDS) {
                    if (span.progress(kind) == DiarySpan.Progress.FAILED) {
                        span = span.with(kind, DiarySpan.Progress.SETTLED);
                    }
                }
            } else {
                LOG.warn(
                        "diary span failed, retrying later tenant={} session={} requestId={} kind={} failures={} "
                                + "retryAt={} error={}",
                        key.tenant(),
                        key.session(),
                        result.requestId(),
                        result.kind(),
                        span.failures(),
                        span.retryAt(),
                        result.error());
            }
        }
        diarySpans.put(spanKey, span);
        headers.put(key.key(), settleDiarySpans(key, header));
    }

    /**
     * Dead-letters the kinds of a span that stand at {@code progress} (null: every kind not settled), as
     * the requests a worker reads.
     */
    private SessionHeader deadLetterSpan(
            SessionKey key,
            SessionHeader header,
            DiarySpan span,
            DiarySpan.Progress progress,
            String detail,
            long timestamp) {
        LlmRequest request = withMessages(key, span).request();
        for (LlmKind kind : DIARY_KINDS) {
            DiarySpan.Progress current = span.progress(kind);
            if (current != DiarySpan.Progress.SETTLED && (progress == null || current == progress)) {
                outputs.deadLetterRequest(key, request.withKind(kind), detail, timestamp);
            }
        }
        LOG.warn(
                "diary span dead-lettered tenant={} session={} requestId={} fromSeq={} toSeq={} failures={}",
                key.tenant(),
                key.session(),
                span.request().requestId(),
                span.request().fromSeq(),
                span.request().toSeq(),
                span.failures());
        return header.withCounter(Counter.DIARY_DEAD_LETTERED, 1);
    }

    /**
     * The span with its messages: its own copy, or {@code [fromSeq, toSeq]} of the message store while it
     * is kept by reference.
     */
    private DiarySpan withMessages(SessionKey key, DiarySpan span) {
        if (!span.byReference()) {
            return span;
        }
        LlmRequest request = span.request();
        List<Message> held = new ArrayList<>();
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(request.fromSeq()), key.messageKey(request.toSeq()))) {
            it.forEachRemaining(entry -> held.add(entry.value.message()));
        }
        if (held.size() != request.toSeq() - request.fromSeq() + 1) {
            // Archiving copies a span in before its messages leave, so this is a bug, not an input.
            LOG.error(
                    "diary span missing messages tenant={} session={} requestId={} fromSeq={} toSeq={} found={}",
                    key.tenant(),
                    key.session(),
                    request.requestId(),
                    request.fromSeq(),
                    request.toSeq(),
                    held.size());
        }
        return span.holding(MessageSpan.of(held));
    }

    /** Deletes the settled spans at the front and moves coverage to the last of them. */
    private SessionHeader settleDiarySpans(SessionKey key, SessionHeader header) {
        List<String> settled = new ArrayList<>();
        long covered = header.diaryCoveredSeq();
        try (KeyValueIterator<String, DiarySpan> it =
                diarySpans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
            while (it.hasNext()) {
                KeyValue<String, DiarySpan> entry = it.next();
                if (!entry.value.settled()) {
                    break;
                }
                settled.add(entry.key);
                covered = Math.max(covered, entry.value.request().toSeq());
            }
        }
        settled.forEach(diarySpans::delete);
        return header.withDiaryCovered(covered);
    }

    /** Sends the failed kinds of every span whose backoff has passed again. */
    private void retryDiarySpans(long nowMs) {
        Instant now = Instant.ofEpochMilli(nowMs);
        List<KeyValue<String, DiarySpan>> due = new ArrayList<>();
        try (KeyValueIterator<String, DiarySpan> it = diarySpans.all()) {
            it.forEachRemaining(entry -> {
                if (entry.value.retryAt() != null && !now.isBefore(entry.value.retryAt())) {
                    due.add(entry);
                }
            });
        }
        for (KeyValue<String, DiarySpan> entry : due) {
            DiarySpan span = entry.value.resent();
            SessionKey key =
                    new SessionKey(span.request().tenant(), span.request().session());
            List<LlmKind> failed = DIARY_KINDS.stream()
                    .filter(kind -> entry.value.progress(kind) == DiarySpan.Progress.FAILED)
                    .toList();
            if (!failed.isEmpty()) {
                outputs.request(key, withMessages(key, span).request().asking(failed), nowMs);
            }
            diarySpans.put(entry.key, span);
            LOG.info(
                    "diary span sent again tenant={} session={} requestId={} attempt={} failures={}",
                    key.tenant(),
                    key.session(),
                    span.request().requestId(),
                    span.request().attempt(),
                    span.failures());
        }
    }

    /**
     * Sessions quiet for {@code idleAfter} get a diary update and a memory extraction for the live
     * messages no diary update has covered, so short conversations are remembered too; each quiet
     * spell is handled once, after which the session waits in the expiry index. Sessions quiet for
     * {@code retention} expire.
     */
    void sweep(long nowMs) {
        tenants.refresh(nowMs);
        retryDiarySpans(nowMs);
        retryCompactions(nowMs);
        sweepIdle(nowMs);
        sweepExpired(nowMs);
    }

    /**
     * Plans again the compactions of sessions whose failed compaction's backoff is over or whose pending
     * one timed out, as a message would: a session that goes quiet after a failure must not stay over
     * its threshold (its served context within the limit only by holding older messages back).
     */
    private void retryCompactions(long nowMs) {
        Instant now = Instant.ofEpochMilli(nowMs);
        for (String entry : keysBefore(retryKey(0, null), retryKey(nowMs + 1, null))) {
            activity.delete(entry);
            SessionKey key = SessionKey.parse(entry.substring(RETRY_PREFIX.length() + 20));
            SessionHeader header = headers.get(key.key());
            if (header == null) {
                continue;
            }
            SessionHeader next = maybeCompact(key, header, now, false, nowMs, tenants.of(key.tenant(), nowMs));
            if (!next.equals(header)) {
                headers.put(key.key(), next);
            }
        }
    }

    private void scheduleRetry(SessionKey key, Instant at) {
        activity.put(retryKey(at.toEpochMilli(), key), "");
    }

    private void sweepIdle(long nowMs) {
        // Up to the shortest idle period of any tenant; a session of a tenant with a longer one waits.
        for (String entry : keysBefore(
                activityKey(0, null), activityKey(nowMs - tenants.shortestIdle().toMillis(), null))) {
            long lastActiveMs = Long.parseLong(entry.substring(0, 19));
            SessionKey key = SessionKey.parse(entry.substring(20));
            if (lastActiveMs
                    > nowMs - tenants.of(key.tenant(), nowMs).idleAfter().toMillis()) {
                continue;
            }
            activity.delete(entry);
            SessionHeader header = headers.get(key.key());
            if (header == null || staleEntry(header, lastActiveMs)) {
                continue;
            }
            activity.put(expiryKey(activitySecond(lastActiveMs), key), "");
            long from = Math.max(header.firstLiveSeq(), diaryRequestedSeq(key, header) + 1);
            long to = header.nextSeq() - 1;
            if (header.liveCount() == 0 || from > to) {
                continue;
            }
            List<Message> span = new ArrayList<>();
            try (KeyValueIterator<String, StoredMessage> it =
                    messages.range(key.messageKey(from), key.messageKey(to))) {
                it.forEachRemaining(stored -> span.add(stored.value.message()));
            }
            String requestId = settings.requestSecret().requestId(key.key() + "#idle#" + to);
            Instant now = Instant.ofEpochMilli(nowMs);
            LlmRequest diary = new LlmRequest(
                    requestId,
                    header.epoch(),
                    LlmKind.DIARY,
                    key.tenant(),
                    key.session(),
                    header.user(),
                    from,
                    to,
                    MessageSpan.of(span),
                    "",
                    settings.language(),
                    0,
                    now);
            sendDiarySpan(key, diary, nowMs);
            LOG.info(
                    "idle session sent for diary tenant={} session={} requestId={} messages={}",
                    key.tenant(),
                    key.session(),
                    requestId,
                    span.size());
        }
    }

    /**
     * Deletes the state of sessions quiet for longer than the retention. Live messages that no
     * compaction archived are archived now (without a summary request ID), so expiry loses nothing
     * that was said; the summary is not archived, the diary already holds what it covered.
     */
    private void sweepExpired(long nowMs) {
        String until = expiryKey(nowMs - tenants.shortestRetention().toMillis(), null);
        for (String entry : keysBefore(expiryKey(0, null), until)) {
            long lastActiveMs = Long.parseLong(entry.substring(EXPIRY_PREFIX.length(), EXPIRY_PREFIX.length() + 19));
            SessionKey key = SessionKey.parse(entry.substring(EXPIRY_PREFIX.length() + 20));
            if (lastActiveMs
                    > nowMs - tenants.of(key.tenant(), nowMs).retention().toMillis()) {
                continue;
            }
            activity.delete(entry);
            SessionHeader header = headers.get(key.key());
            if (header == null || staleEntry(header, lastActiveMs)) {
                continue;
            }
            // Before archiving: a span kept by reference reads its messages from the store, and archiving
            // would first write each such span again with a copy of them, only for it to be deleted here.
            for (DiarySpan span : diarySpans(key)) {
                // The state goes, so nothing can retry it: hand the span to the operator instead of dropping it.
                deadLetterSpan(key, header, span, null, "session expired before the span succeeded", nowMs);
                diarySpans.delete(key.messageKey(span.request().fromSeq()));
            }
            Archived archived = archive(key, header.firstLiveSeq(), Long.MAX_VALUE, null, nowMs);
            summaries.delete(key.key());
            recentIds.forget(key);
            headers.delete(key.key());
            LOG.info(
                    "session expired tenant={} session={} archived={} quietSince={}",
                    key.tenant(),
                    key.session(),
                    archived.count(),
                    Instant.ofEpochMilli(header.lastActiveMs()));
        }
    }

    /**
     * Tool outputs of archived messages are tombstoned by their possible IDs (the messages are gone, so
     * which blocks were stored is unknown): the first this many blocks of every archived message.
     */
    static final int ARCHIVED_BLOCKS_TOMBSTONED = 16;

    /** What {@link #erase} removed from this task's stores. */
    record Erased(long sessions, long messages, long summaries, long toolOutputs) {}

    /**
     * Deletes every session of {@code tenant} whose user {@code erasure} covers, from every session
     * store, without archiving anything, and tombstones the full tool outputs those sessions could
     * have stored (exactly for live messages, by candidate ID for archived ones). Spans in flight to
     * the workers are dropped, not dead-lettered: their content is what is being erased.
     */
    Erased erase(Erasure erasure, long timestamp) {
        List<SessionHeader> doomed = new ArrayList<>();
        try (KeyValueIterator<String, SessionHeader> it =
                headers.prefixScan(erasure.tenant() + "/", new StringSerializer())) {
            it.forEachRemaining(entry -> {
                if (erasure.covers(entry.value.user())) {
                    doomed.add(entry.value);
                }
            });
        }
        long liveMessages = 0;
        long summaryCount = 0;
        long toolOutputs = 0;
        for (SessionHeader header : doomed) {
            SessionKey key = header.key();
            List<String> live = new ArrayList<>();
            try (KeyValueIterator<String, StoredMessage> it =
                    messages.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
                while (it.hasNext()) {
                    KeyValue<String, StoredMessage> entry = it.next();
                    live.add(entry.key);
                    List<Block> blocks = entry.value.message().content();
                    for (int i = 0; i < blocks.size(); i++) {
                        if (blocks.get(i) instanceof Block.ToolResult) {
                            outputs.toolResultTombstone(
                                    key.tenant(), toolResultId(key, entry.value.seq(), i), timestamp);
                            toolOutputs++;
                        }
                    }
                }
            }
            live.forEach(messages::delete);
            liveMessages += live.size();
            for (long seq = 0; seq < Math.min(header.firstLiveSeq(), header.nextSeq()); seq++) {
                for (int i = 0; i < ARCHIVED_BLOCKS_TOMBSTONED; i++) {
                    outputs.toolResultTombstone(key.tenant(), toolResultId(key, seq, i), timestamp);
                    toolOutputs++;
                }
            }
            List<String> spans = new ArrayList<>();
            try (KeyValueIterator<String, DiarySpan> it =
                    diarySpans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
                it.forEachRemaining(entry -> spans.add(entry.key));
            }
            spans.forEach(diarySpans::delete);
            if (summaries.get(key.key()) != null) {
                summaries.delete(key.key());
                summaryCount++;
            }
            recentIds.forget(key);
            forgetActivity(key, header.lastActiveMs());
            headers.delete(key.key());
        }
        return new Erased(doomed.size(), liveMessages, summaryCount, toolOutputs);
    }

    private record Archived(int count, long tokens) {}

    /**
     * Moves the live messages {@code fromSeq..toSeq} to the {@code dialog} topic, dated by the
     * conversation, and out of the window.
     */
    private Archived archive(SessionKey key, long fromSeq, long toSeq, String summaryRequestId, long timestamp) {
        // A span kept by reference takes its copy while its messages are still here to copy.
        for (DiarySpan span : diarySpans(key)) {
            if (span.byReference()
                    && span.request().fromSeq() <= toSeq
                    && span.request().toSeq() >= fromSeq) {
                diarySpans.put(key.messageKey(span.request().fromSeq()), withMessages(key, span));
            }
        }
        int count = 0;
        long archivedTokens = 0;
        List<String> covered = new ArrayList<>();
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(fromSeq), key.messageKey(toSeq))) {
            while (it.hasNext()) {
                KeyValue<String, StoredMessage> entry = it.next();
                StoredMessage stored = entry.value;
                Message message = stored.message();
                outputs.archive(
                        key,
                        new ArchivedMessage(
                                key.tenant(),
                                key.session(),
                                message.user(),
                                day.format(message.time()),
                                stored.seq(),
                                summaryRequestId,
                                message),
                        timestamp);
                covered.add(entry.key);
                count++;
                archivedTokens += stored.tokens();
            }
        }
        covered.forEach(messages::delete);
        return new Archived(count, archivedTokens);
    }

    private List<String> keysBefore(String from, String until) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, String> it = activity.range(from, until)) {
            it.forEachRemaining(entry -> keys.add(entry.key));
        }
        return keys;
    }

    /** A session is in exactly one of the two indexes: quiet-for-a-while or waiting to expire. */
    private void forgetActivity(SessionKey key, long lastActiveMs) {
        if (lastActiveMs <= 0) {
            return;
        }
        long second = activitySecond(lastActiveMs);
        String idle = activityKey(second, key);
        if (activity.get(idle) != null) {
            activity.delete(idle);
        } else {
            activity.delete(expiryKey(second, key));
        }
    }

    /**
     * A session's last activity as the activity indexes keep it: rounded up to the second, so a session
     * is found idle at most a second late (the sweep runs far less often).
     */
    private static long activitySecond(long ms) {
        return ms <= 0 ? ms : Math.ceilDiv(ms, 1000L) * 1000L;
    }

    /**
     * Whether an activity index entry is older than the session's last activity: an entry written with
     * a finer clock before an upgrade, left behind when the session moved on. It is dropped, never acted on.
     */
    private static boolean staleEntry(SessionHeader header, long entryMs) {
        return activitySecond(header.lastActiveMs()) > activitySecond(entryMs);
    }

    private static String activityKey(long ms, SessionKey key) {
        return SessionKey.padded(Math.max(0, ms)) + "/" + (key == null ? "" : key.key());
    }

    /** Sorts after every idle key (digits) and before the expiry index ({@code x}). */
    private static String retryKey(long ms, SessionKey key) {
        return RETRY_PREFIX + activityKey(ms, key);
    }

    /** Sorts after every idle key (digits), so the idle range never reaches into the expiry index. */
    private static String expiryKey(long ms, SessionKey key) {
        return EXPIRY_PREFIX + activityKey(ms, key);
    }

    private String summary(SessionKey key) {
        String summary = summaries.get(key.key());
        return summary == null ? "" : summary;
    }

    /** Live messages in order; read only when a plan is needed, never on a plain append. */
    List<StoredMessage> window(SessionKey key, SessionHeader header) {
        List<StoredMessage> window = new ArrayList<>(header.liveCount());
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(header.firstLiveSeq()), key.messageKey(Long.MAX_VALUE))) {
            it.forEachRemaining(entry -> window.add(entry.value));
        }
        return window;
    }

    /** Outputs that left the recent window are cut to the small limit. */
    private SessionHeader ageToolOutputs(SessionKey key, SessionHeader header, long timestamp) {
        long delta = 0;
        int cut = 0;
        for (long seq : header.recentToolSeqs()) {
            StoredMessage stored = messages.get(key.messageKey(seq));
            if (stored == null) {
                continue;
            }
            TokenCounter.Prefix[] known = agingCounts.remove(key.messageKey(seq));
            Truncated truncated =
                    truncate(key, seq, stored.message(), settings.truncation().oldBytes(), timestamp);
            if (truncated.count() > 0) {
                int count = countAged(truncated.message(), known);
                messages.put(key.messageKey(seq), new StoredMessage(seq, count, truncated.message()));
                delta += count - stored.tokens();
                cut += truncated.count();
            }
        }
        return header.withTokenDelta(delta, List.of()).withCounter(Counter.TRUNCATED_OUTPUTS, cut);
    }

    /**
     * Counts a message whose tool outputs will be cut to the old limit when they age, remembering the
     * counts of each such output's first characters: its cut form is then counted from where they end.
     */
    private int countForAging(SessionKey key, long seq, Message message) {
        int limit = settings.truncation().oldBytes();
        List<Block> blocks = message.content();
        TokenCounter.Prefix[] prefixes = new TokenCounter.Prefix[blocks.size()];
        int total = 0;
        for (int i = 0; i < blocks.size(); i++) {
            if (blocks.get(i) instanceof Block.ToolResult result
                    && ToolResultTruncator.exceeds(result.output(), limit)) {
                // The cut keeps at most limit bytes, so at most limit chars.
                TokenCounter.Counted counted = tokens.countRemembering(result.output(), limit);
                prefixes[i] = counted.prefix();
                total += counted.tokens();
            } else {
                total += tokens.count(blocks.get(i));
            }
        }
        agingCounts.put(key.messageKey(seq), prefixes);
        return total;
    }

    /** Counts an aged message, each cut output from its remembered prefix if there is one (null: none). */
    private int countAged(Message message, TokenCounter.Prefix[] known) {
        List<Block> blocks = message.content();
        int total = 0;
        for (int i = 0; i < blocks.size(); i++) {
            if (known != null
                    && i < known.length
                    && known[i] != null
                    && blocks.get(i) instanceof Block.ToolResult result) {
                total += tokens.count(result.output(), known[i]);
            } else {
                total += tokens.count(blocks.get(i));
            }
        }
        return total;
    }

    private record Truncated(Message message, int count) {}

    private Truncated truncate(SessionKey key, long seq, Message message, int limit, long timestamp) {
        Message result = message;
        int count = 0;
        List<Block> blocks = message.content();
        for (int i = 0; i < blocks.size(); i++) {
            if (!(blocks.get(i) instanceof Block.ToolResult block)) {
                continue;
            }
            Optional<String> cut;
            if (!ToolResultTruncator.exceeds(block.output(), limit)) {
                // Within the limit (most outputs, on append): nothing to cut, so no stored ID to derive.
                cut = Optional.empty();
            } else if (ToolResultTruncator.isTruncated(block.output())) {
                cut = truncator.retruncate(block.output(), limit);
            } else {
                String id = toolResultId(key, seq, i);
                cut = truncator.truncate(block.output(), limit, ToolResultTruncator.storedPath(id));
                if (cut.isPresent()) {
                    outputs.toolResult(key.tenant(), id, block.output(), timestamp);
                }
            }
            if (cut.isPresent()) {
                result = result.withBlock(i, block.withOutput(cut.get()));
                count++;
            }
        }
        return new Truncated(result, count);
    }

    private static boolean exceeds(Message message, int limit) {
        for (Block block : message.content()) {
            if (block instanceof Block.ToolResult result && ToolResultTruncator.exceeds(result.output(), limit)) {
                return true;
            }
        }
        return false;
    }

    /** What a compaction's request ID is derived from: unique per session and epoch, the same on replay. */
    private static String compactionName(SessionKey key, long epoch) {
        return key.key() + "#" + epoch;
    }

    /** Stable across replays, unique per block: the same input always names the same stored output. */
    static String toolResultId(SessionKey key, long seq, int blockIndex) {
        return UUID.nameUUIDFromBytes((key.key() + "/" + seq + "/" + blockIndex).getBytes(StandardCharsets.UTF_8))
                .toString()
                .replace("-", "");
    }
}
