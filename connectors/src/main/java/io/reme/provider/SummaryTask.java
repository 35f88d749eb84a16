package io.reme.provider;

import io.reme.message.Message;
import java.util.List;
import java.util.Objects;

/**
 * What a summary is written from: the span's messages, the summary it extends (empty the first
 * time), the language of the content, the token budget, and on a retry why the last answer was refused.
 */
public record SummaryTask(List<Message> messages, String previousSummary, String language, int maxTokens,
        String retryReason) {
    public SummaryTask {
        messages = List.copyOf(messages);
        previousSummary = previousSummary == null ? "" : previousSummary;
        Objects.requireNonNull(language, "language");
    }

    public SummaryTask withRetryReason(String reason) {
        return new SummaryTask(messages, previousSummary, language, maxTokens, reason);
    }
}
