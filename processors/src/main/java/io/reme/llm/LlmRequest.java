package io.reme.llm;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.reme.message.Message;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A request for an LLM worker, in three parts: what is asked ({@code kind}, and {@code also}), the dialog it is
 * asked over ({@link Dialog}: a contiguous span of one session) and what only a summary needs ({@link Compaction}).
 * {@code epoch} increases with every request of the session; a result is applied only if its request ID and epoch
 * are still the pending ones.
 *
 * <p>One record may ask for more than one kind over the same span ({@code also}: a DIARY request's EXTRACT twin), so
 * the span travels once; a worker answers each kind with its own result, as if each had come in a record of its own
 * ({@link #kinds}, {@link #withKind}).
 *
 * <p>The {@code llm-requests} topic and the diary spans' store hold it as one flat JSON object ({@link Wire}), as
 * they always have, so that records written by an older version are read by a newer one and the other way round.
 */
public record LlmRequest(
        String requestId,
        long epoch,
        LlmKind kind,
        List<LlmKind> also,
        Dialog dialog,
        Compaction compaction,
        int attempt,
        Instant createdAt) {

    public LlmRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(dialog, "dialog");
        compaction = compaction == null ? Compaction.NONE : compaction;
        Objects.requireNonNull(createdAt, "createdAt");
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

    /** A first attempt asking for {@code kind} alone. */
    public static LlmRequest of(
            String requestId, long epoch, LlmKind kind, Dialog dialog, Compaction compaction, Instant createdAt) {
        return new LlmRequest(requestId, epoch, kind, List.of(), dialog, compaction, 0, createdAt);
    }

    /**
     * The span {@code [fromSeq, toSeq]} of a session's dialog a request is over, and the language its answer is
     * written in.
     *
     * @param incarnation the life of the session the span belongs to (0 before incarnations existed): the request
     *     ID is made of it, and the result echoes it, so a result of a session erased and written again is told
     *     from the new session's (see {@code SessionHeader.Compaction#incarnation})
     * @param messages the span's messages; a {@link MessageSpan} shared by several requests stays one object,
     *     written as JSON once
     */
    public record Dialog(
            String tenant,
            String session,
            String user,
            long incarnation,
            long fromSeq,
            long toSeq,
            List<Message> messages,
            String language) {
        public Dialog {
            SafeId.require("tenant", tenant);
            SafeId.require("session", session);
            SafeId.require("user", user);
            if (fromSeq > toSeq) {
                throw new IllegalArgumentException("fromSeq " + fromSeq + " > toSeq " + toSeq);
            }
            messages = messages instanceof MessageSpan span ? span : List.copyOf(messages);
            language = language == null ? "en" : language;
        }

        /** The same dialog over {@code newMessages} (the span's messages, or none where they are kept by reference). */
        public Dialog withMessages(List<Message> newMessages) {
            return new Dialog(tenant, session, user, incarnation, fromSeq, toSeq, newMessages, language);
        }

        /** The part of this dialog from {@code newFromSeq} on. */
        public Dialog from(long newFromSeq) {
            int skip = (int) (newFromSeq - fromSeq);
            if (skip < 0 || newFromSeq > toSeq) {
                throw new IllegalArgumentException(
                        "from " + newFromSeq + " is outside [" + fromSeq + ", " + toSeq + "]");
            }
            return new Dialog(
                    tenant,
                    session,
                    user,
                    incarnation,
                    newFromSeq,
                    toSeq,
                    skip == 0 ? messages : messages.subList(skip, messages.size()),
                    language);
        }
    }

    /**
     * What a COMPACT request carries and other kinds do not.
     *
     * @param previousSummary the session's summary the new one replaces ("" for none)
     * @param summaryBudget the summary's token budget, derived from the session's window (0 when unknown: the
     *     worker's own applies)
     * @param unansweredCalls the tool calls in the span that never got a result, which the summary should name
     */
    public record Compaction(String previousSummary, int summaryBudget, List<String> unansweredCalls) {
        public static final Compaction NONE = new Compaction("", 0, List.of());

        public Compaction {
            previousSummary = previousSummary == null ? "" : previousSummary;
            if (summaryBudget < 0) {
                throw new IllegalArgumentException("summaryBudget must be >= 0, got " + summaryBudget);
            }
            unansweredCalls = unansweredCalls == null ? List.of() : List.copyOf(unansweredCalls);
        }
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
     * The same request asking for {@code kinds} over the same span: the first as its own kind, the others as
     * {@code also}.
     */
    public LlmRequest asking(List<LlmKind> kinds) {
        return new LlmRequest(
                requestId, epoch, kinds.get(0), kinds.subList(1, kinds.size()), dialog, compaction, attempt, createdAt);
    }

    /** The same request as attempt {@code newAttempt}. */
    public LlmRequest withAttempt(int newAttempt) {
        return new LlmRequest(requestId, epoch, kind, also, dialog, compaction, newAttempt, createdAt);
    }

    /** The same request over {@code newMessages} (the span's messages, or none where they are kept by reference). */
    public LlmRequest withMessages(List<Message> newMessages) {
        return new LlmRequest(
                requestId, epoch, kind, also, dialog.withMessages(newMessages), compaction, attempt, createdAt);
    }

    @JsonValue
    Wire wire() {
        return new Wire(
                requestId,
                epoch,
                kind,
                dialog.tenant(),
                dialog.session(),
                dialog.user(),
                dialog.fromSeq(),
                dialog.toSeq(),
                dialog.messages(),
                compaction.previousSummary(),
                dialog.language(),
                attempt,
                createdAt,
                compaction.summaryBudget(),
                compaction.unansweredCalls(),
                also,
                dialog.incarnation());
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static LlmRequest fromWire(Wire wire) {
        return wire.request();
    }

    /** The record's JSON: flat, its fields in the order they were added to the topic. */
    record Wire(
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
        LlmRequest request() {
            return new LlmRequest(
                    requestId,
                    epoch,
                    kind,
                    also,
                    new Dialog(tenant, session, user, incarnation, fromSeq, toSeq, messages, language),
                    new Compaction(previousSummary, summaryBudget, unansweredCalls),
                    attempt,
                    createdAt);
        }
    }
}
