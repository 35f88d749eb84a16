package io.reme.session;

import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.llm.MessageSpan;
import io.reme.message.Message;
import io.reme.session.SessionCounters.Counter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spans of a session sent for a diary update and a memory extraction, from the request to the
 * settled outcome: each span is sent once for both kinds ({@link #KINDS}), kept in the diary span store
 * until both settled, sent again after a failure's backoff, and dead-lettered when it is given up; the
 * header's diary coverage then moves over the settled spans at the front, never past an unsettled one.
 * Used by the task's stream thread only.
 */
final class DiarySpans {
    private static final Logger LOG = LoggerFactory.getLogger(DiarySpans.class);
    /** What a diary span asks of the workers, in one record: the diary update and its EXTRACT twin. */
    static final List<LlmKind> KINDS = List.of(LlmKind.DIARY, LlmKind.EXTRACT);

    private final TaskStores stores;
    private final KeyValueStore<String, DiarySpan> spans;
    private final SessionSettings settings;
    private final SessionOutputs outputs;

    DiarySpans(TaskStores stores, SessionSettings settings, SessionOutputs outputs) {
        this.stores = stores;
        this.spans = stores.diarySpans();
        this.settings = settings;
        this.outputs = outputs;
    }

    /**
     * Sends the part of a compaction's span that no diary span holds yet (all of it, unless the
     * session went idle in between), with the compaction's request ID and epoch, for a diary update
     * and for memory extraction. Both go out with the compaction request rather than when its result
     * is applied: the span is the same dialog however the compaction ends. The span is kept until
     * both succeeded (see {@link #applyOutcome}), so neither reads a message twice and a failure
     * skips nothing.
     */
    void requestWith(SessionKey key, SessionHeader header, LlmRequest compact, long timestamp) {
        long from = Math.max(compact.dialog().fromSeq(), requestedSeq(key, header) + 1);
        if (from > compact.dialog().toSeq()) {
            return;
        }
        LlmRequest diary = LlmRequest.of(
                compact.requestId(),
                compact.epoch(),
                LlmKind.DIARY,
                compact.dialog().from(from),
                LlmRequest.Compaction.NONE,
                compact.createdAt());
        send(key, diary, timestamp);
    }

    /** Keeps {@code diary} as a new span and sends it for both kinds. */
    void send(SessionKey key, LlmRequest diary, long timestamp) {
        spans.put(key.messageKey(diary.dialog().fromSeq()), DiarySpan.sent(diary));
        // One record for both: the span travels once, and the worker answers each kind on its own.
        outputs.request(key, diary.asking(KINDS), timestamp);
    }

    /** The last sequence number a diary span holds, settled or not (-1: none). */
    long requestedSeq(SessionKey key, SessionHeader header) {
        long last = header.diaryCoveredSeq();
        for (DiarySpan span : stores.diarySpans(key)) {
            last = Math.max(last, span.request().dialog().toSeq());
        }
        return last;
    }

    /**
     * A DIARY or EXTRACT result for one of the session's spans. OK settles that kind; FAILED keeps the
     * span and schedules it again after the backoff, or after {@code maxFailures} (or at once, refused as
     * longer than the model's context) dead-letters it. Writes the header.
     */
    void applyOutcome(SessionKey key, SessionHeader header, LlmResult result, long timestamp, long processingMs) {
        String spanKey = null;
        DiarySpan span = null;
        try (KeyValueIterator<String, DiarySpan> it = spans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
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
            stores.headers().put(key.key(), header.withCounter(Counter.DUPLICATE_RESULTS, 1));
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
                header = deadLetter(
                        key,
                        header,
                        span,
                        DiarySpan.Progress.FAILED,
                        hopeless
                                ? "a message is longer than the model's context: " + span.lastError()
                                : "gave up after " + span.failures() + " failures: " + span.lastError(),
                        timestamp);
                for (LlmKind kind : KINDS) {
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
        spans.put(spanKey, span);
        stores.headers().put(key.key(), settle(key, header));
    }

    /**
     * Dead-letters the kinds of a span that stand at {@code progress} (null: every kind not settled), as
     * the requests a worker reads.
     */
    private SessionHeader deadLetter(
            SessionKey key,
            SessionHeader header,
            DiarySpan span,
            DiarySpan.Progress progress,
            String detail,
            long timestamp) {
        LlmRequest request = withMessages(key, span).request();
        for (LlmKind kind : KINDS) {
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
                span.request().dialog().fromSeq(),
                span.request().dialog().toSeq(),
                span.failures());
        return header.withCounter(Counter.DIARY_DEAD_LETTERED, 1);
    }

    /**
     * The session's state goes (it expired) and nothing can retry its spans: each is handed to the
     * operator instead of being dropped, and deleted.
     */
    void giveUpAll(SessionKey key, SessionHeader header, String detail, long timestamp) {
        for (DiarySpan span : stores.diarySpans(key)) {
            deadLetter(key, header, span, null, detail, timestamp);
            spans.delete(key.messageKey(span.request().dialog().fromSeq()));
        }
    }

    /** Deletes the session's spans without sending them anywhere (their content is being erased). */
    void drop(SessionKey key) {
        List<String> doomed = new ArrayList<>();
        try (KeyValueIterator<String, DiarySpan> it = spans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
            it.forEachRemaining(entry -> doomed.add(entry.key));
        }
        doomed.forEach(spans::delete);
    }

    /**
     * Before the messages {@code fromSeq..toSeq} leave the message store, every span kept by reference
     * that holds some of them takes its own copy.
     */
    void copyBeforeArchiving(SessionKey key, long fromSeq, long toSeq) {
        for (DiarySpan span : stores.diarySpans(key)) {
            if (span.byReference()
                    && span.request().dialog().fromSeq() <= toSeq
                    && span.request().dialog().toSeq() >= fromSeq) {
                spans.put(key.messageKey(span.request().dialog().fromSeq()), withMessages(key, span));
            }
        }
    }

    /** Sends the failed kinds of every span whose backoff has passed again. */
    void retryDue(long nowMs) {
        Instant now = Instant.ofEpochMilli(nowMs);
        List<KeyValue<String, DiarySpan>> due = new ArrayList<>();
        try (KeyValueIterator<String, DiarySpan> it = spans.all()) {
            it.forEachRemaining(entry -> {
                if (entry.value.retryAt() != null && !now.isBefore(entry.value.retryAt())) {
                    due.add(entry);
                }
            });
        }
        for (KeyValue<String, DiarySpan> entry : due) {
            DiarySpan span = entry.value.resent();
            SessionKey key = new SessionKey(
                    span.request().dialog().tenant(), span.request().dialog().session());
            List<LlmKind> failed = KINDS.stream()
                    .filter(kind -> entry.value.progress(kind) == DiarySpan.Progress.FAILED)
                    .toList();
            if (!failed.isEmpty()) {
                outputs.request(key, withMessages(key, span).request().asking(failed), nowMs);
            }
            spans.put(entry.key, span);
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
     * The span with its messages: its own copy, or {@code [fromSeq, toSeq]} of the message store while it
     * is kept by reference.
     */
    private DiarySpan withMessages(SessionKey key, DiarySpan span) {
        if (!span.byReference()) {
            return span;
        }
        LlmRequest request = span.request();
        List<Message> held = stores.messages(
                key, request.dialog().fromSeq(), request.dialog().toSeq());
        if (held.size() != request.dialog().toSeq() - request.dialog().fromSeq() + 1) {
            // Archiving copies a span in before its messages leave, so this is a bug, not an input.
            LOG.error(
                    "diary span missing messages tenant={} session={} requestId={} fromSeq={} toSeq={} found={}",
                    key.tenant(),
                    key.session(),
                    request.requestId(),
                    request.dialog().fromSeq(),
                    request.dialog().toSeq(),
                    held.size());
        }
        return span.holding(MessageSpan.of(held));
    }

    /** Deletes the settled spans at the front and moves coverage to the last of them. */
    private SessionHeader settle(SessionKey key, SessionHeader header) {
        List<String> settled = new ArrayList<>();
        long covered = header.diaryCoveredSeq();
        try (KeyValueIterator<String, DiarySpan> it = spans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
            while (it.hasNext()) {
                KeyValue<String, DiarySpan> entry = it.next();
                if (!entry.value.settled()) {
                    break;
                }
                settled.add(entry.key);
                covered = Math.max(covered, entry.value.request().dialog().toSeq());
            }
        }
        settled.forEach(spans::delete);
        return header.withDiaryCovered(covered);
    }
}
