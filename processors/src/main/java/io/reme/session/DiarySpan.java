package io.reme.session;

import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.message.Message;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A span of dialog sent for a diary update and a memory extraction whose outcome is not settled yet:
 * the DIARY request itself (the EXTRACT one is the same with another kind), where each of the two
 * stands, how often they failed and when a failed one is sent again. Kept until both succeeded or
 * were dead-lettered, so coverage only moves over what a diary and the memories really hold.
 *
 * <p>While the span's messages are still in the session's message store the request is kept without
 * them ({@link #byReference}): the store holds them, and a copy here would write the span to a
 * changelog once more for every compaction. They are copied in ({@link #holding}) only when they are
 * about to leave the store (archived by a compaction, or the session expiring) before the span settled.
 *
 * @param request the DIARY request, without its messages while it is {@link #byReference}; its
 *     {@code attempt} counts the times it was re-sent
 * @param failures FAILED results of either kind so far
 * @param retryAt when the failed kinds are sent again (null while nothing waits)
 * @param lastError the error of the last FAILED result
 */
public record DiarySpan(
        LlmRequest request, Progress diary, Progress extract, int failures, Instant retryAt, String lastError) {

    /** Where one kind of request stands. */
    public enum Progress {
        /** Sent, no result yet. */
        SENT,
        /** Its last result was FAILED; sent again at {@code retryAt}. */
        FAILED,
        /** Done: OK, or given up and dead-lettered. */
        SETTLED
    }

    public DiarySpan {
        Objects.requireNonNull(request, "request");
        if (request.kind() != LlmKind.DIARY) {
            throw new IllegalArgumentException("a span is kept as its DIARY request, got " + request.kind());
        }
        Objects.requireNonNull(diary, "diary");
        Objects.requireNonNull(extract, "extract");
    }

    /** A span just sent, its messages still in the message store: kept by reference. */
    static DiarySpan sent(LlmRequest diaryRequest) {
        return new DiarySpan(diaryRequest.withMessages(List.of()), Progress.SENT, Progress.SENT, 0, null, null);
    }

    /**
     * Whether the request is kept without its messages, which are then {@code [fromSeq, toSeq]} of the
     * session's message store. A span always covers at least one message, so an empty list says it.
     */
    boolean byReference() {
        return request.dialog().messages().isEmpty();
    }

    /** This span with its messages copied in. */
    DiarySpan holding(List<Message> messages) {
        return new DiarySpan(request.withMessages(messages), diary, extract, failures, retryAt, lastError);
    }

    Progress progress(LlmKind kind) {
        return kind == LlmKind.DIARY ? diary : extract;
    }

    /** Both outcomes are settled: the span no longer holds coverage back. */
    boolean settled() {
        return diary == Progress.SETTLED && extract == Progress.SETTLED;
    }

    DiarySpan with(LlmKind kind, Progress progress) {
        return kind == LlmKind.DIARY
                ? new DiarySpan(request, progress, extract, failures, retryAt, lastError)
                : new DiarySpan(request, diary, progress, failures, retryAt, lastError);
    }

    DiarySpan withFailure(LlmKind kind, String error, Instant nextAttempt) {
        return with(kind, Progress.FAILED).withRetry(failures + 1, nextAttempt, error);
    }

    private DiarySpan withRetry(int newFailures, Instant nextAttempt, String error) {
        return new DiarySpan(request, diary, extract, newFailures, nextAttempt, error);
    }

    /** The failed kinds were sent again, as attempt {@code request.attempt() + 1}. */
    DiarySpan resent() {
        LlmRequest again = request.withAttempt(request.attempt() + 1);
        return new DiarySpan(
                again,
                diary == Progress.FAILED ? Progress.SENT : diary,
                extract == Progress.FAILED ? Progress.SENT : extract,
                failures,
                null,
                lastError);
    }
}
