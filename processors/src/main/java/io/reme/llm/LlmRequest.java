package io.reme.llm;

import io.reme.message.Message;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A request for an LLM worker over the contiguous span {@code [fromSeq, toSeq]} of a session.
 * {@code epoch} increases with every request of the session; a result is applied only if its
 * request ID and epoch are still the pending ones. A COMPACT request carries the summary's token
 * budget, derived from the session's window ({@code summaryBudget}, 0 when unknown: the worker's own
 * applies), and the tool calls in the span that never got a result ({@code unansweredCalls}), which
 * the summary should name.
 *
 * <p>One record may ask for more than one kind over the same span ({@code also}: a DIARY request's
 * EXTRACT twin), so the span travels once; a worker answers each kind with its own result, as if
 * each had come in a record of its own ({@link #kinds}, {@link #withKind}).
 *
 * <p>{@code incarnation} is the life of the session the request belongs to (0 before incarnations existed):
 * its request ID is made of it, and its result echoes it, so a result of a session erased and written again
 * is told from the new session's (see {@code SessionHeader.Compaction#incarnation}).
 */
public record LlmRequest(
        String requestId,
        long epoch,
        LlmKind kind,
        String tenant,
        String session,
        String user,
        long fromSeq,
        long toSeq,
        List<Message> messages,
        String previousSummary,
        String language,
        int attempt,
        Instant createdAt,
        int summaryBudget,
        List<String> unansweredCalls,
        List<LlmKind> also,
        long incarnation) {

    public LlmRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(kind, "kind");
        SafeId.require("tenant", tenant);
        SafeId.require("session", session);
        SafeId.require("user", user);
        if (fromSeq > toSeq) {
            throw new IllegalArgumentException("fromSeq " + fromSeq + " > toSeq " + toSeq);
        }
        // A span shared by several requests stays one object, written as JSON once (see MessageSpan).
        messages = messages instanceof MessageSpan span ? span : List.copyOf(messages);
        previousSummary = previousSummary == null ? "" : previousSummary;
        language = language == null ? "en" : language;
        Objects.requireNonNull(createdAt, "createdAt");
        if (summaryBudget < 0) {
            throw new IllegalArgumentException("summaryBudget must be >= 0, got " + summaryBudget);
        }
        unansweredCalls = unansweredCalls == null ? List.of() : List.copyOf(unansweredCalls);
        also = also == null ? List.of() : List.copyOf(also);
        for (int i = 0; i < also.size(); i++) {
            LlmKind other = also.get(i);
            // A COMPACT request carries what only a summary needs (budget, previous summary, calls).
            if (other == LlmKind.COMPACT || other == kind || also.subList(0, i).contains(other)) {
                throw new IllegalArgumentException(
                        "also must name other kinds than " + kind + ", once each, " + "and never COMPACT: " + also);
            }
        }
    }

    /** A request asking for its own kind only. */
    public LlmRequest(
            String requestId,
            long epoch,
            LlmKind kind,
            String tenant,
            String session,
            String user,
            long fromSeq,
            long toSeq,
            List<Message> messages,
            String previousSummary,
            String language,
            int attempt,
            Instant createdAt,
            int summaryBudget,
            List<String> unansweredCalls) {
        this(
                requestId,
                epoch,
                kind,
                tenant,
                session,
                user,
                fromSeq,
                toSeq,
                messages,
                previousSummary,
                language,
                attempt,
                createdAt,
                summaryBudget,
                unansweredCalls,
                List.of(),
                0);
    }

    /** A request without a summary budget of its own and without unanswered calls. */
    public LlmRequest(
            String requestId,
            long epoch,
            LlmKind kind,
            String tenant,
            String session,
            String user,
            long fromSeq,
            long toSeq,
            List<Message> messages,
            String previousSummary,
            String language,
            int attempt,
            Instant createdAt) {
        this(
                requestId,
                epoch,
                kind,
                tenant,
                session,
                user,
                fromSeq,
                toSeq,
                messages,
                previousSummary,
                language,
                attempt,
                createdAt,
                0,
                List.of());
    }

    /** Every kind this record asks for: its own, then {@code also}. */
    public List<LlmKind> kinds() {
        if (also.isEmpty()) {
            return List.of(kind);
        }
        List<LlmKind> kinds = new ArrayList<>(1 + also.size());
        kinds.add(kind);
        kinds.addAll(also);
        return List.copyOf(kinds);
    }

    /** The same request as {@code newKind} alone (without {@code also}): what a worker answers. */
    public LlmRequest withKind(LlmKind newKind) {
        return asking(List.of(newKind));
    }

    /**
     * The same request asking for {@code kinds} over the same span: the first as its own kind, the others
     * as {@code also}.
     */
    public LlmRequest asking(List<LlmKind> kinds) {
        return new LlmRequest(
                requestId,
                epoch,
                kinds.get(0),
                tenant,
                session,
                user,
                fromSeq,
                toSeq,
                messages,
                previousSummary,
                language,
                attempt,
                createdAt,
                summaryBudget,
                unansweredCalls,
                kinds.subList(1, kinds.size()),
                incarnation);
    }

    /** The same request of the session's incarnation {@code newIncarnation}, which its result echoes. */
    public LlmRequest withIncarnation(long newIncarnation) {
        return new LlmRequest(
                requestId,
                epoch,
                kind,
                tenant,
                session,
                user,
                fromSeq,
                toSeq,
                messages,
                previousSummary,
                language,
                attempt,
                createdAt,
                summaryBudget,
                unansweredCalls,
                also,
                newIncarnation);
    }

    /** The same request over {@code newMessages} (the span's messages, or none where it is kept by reference). */
    public LlmRequest withMessages(List<Message> newMessages) {
        return new LlmRequest(
                requestId,
                epoch,
                kind,
                tenant,
                session,
                user,
                fromSeq,
                toSeq,
                newMessages,
                previousSummary,
                language,
                attempt,
                createdAt,
                summaryBudget,
                unansweredCalls,
                also,
                incarnation);
    }
}
