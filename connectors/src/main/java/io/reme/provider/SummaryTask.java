package io.reme.provider;

import io.reme.message.Message;
import java.util.List;
import java.util.Objects;

/**
 * What a summary is written from: the span's messages, the summary it extends (empty the first
 * time), the language of the content, the token budget, on a retry why the last answer was refused,
 * and the ids of tool calls in the span that never got a result (the summary's Critical Context says so).
 */
public record SummaryTask(
        List<Message> messages,
        String previousSummary,
        String language,
        int maxTokens,
        String retryReason,
        List<String> unansweredCalls) {
    public SummaryTask {
        messages = List.copyOf(messages);
        previousSummary = previousSummary == null ? "" : previousSummary;
        Objects.requireNonNull(language, "language");
        unansweredCalls = unansweredCalls == null ? List.of() : List.copyOf(unansweredCalls);
    }

    /** A task without unanswered calls. */
    public SummaryTask(
            List<Message> messages, String previousSummary, String language, int maxTokens, String retryReason) {
        this(messages, previousSummary, language, maxTokens, retryReason, List.of());
    }

    public SummaryTask withRetryReason(String reason) {
        return new SummaryTask(messages, previousSummary, language, maxTokens, reason, unansweredCalls);
    }
}
