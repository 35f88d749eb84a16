package io.reme.provider;

import java.util.List;

/**
 * One LLM provider, at the level of the tasks we need rather than raw chat, so a provider without a
 * model (the offline extractive one) can implement it too. Implementations are thread-safe; every
 * call may block for as long as the provider takes (the worker pool applies timeouts).
 */
public interface LlmClient extends AutoCloseable {

    /** A label recorded with what this provider produces, e.g. {@code openai:gpt-4o-mini} or {@code offline-extractive}. */
    String id();

    /**
     * Writes the structured summary of {@code task.messages()}, merging {@code task.previousSummary()}.
     * The caller validates the answer; a retry carries the reason in {@code task.retryReason()}.
     */
    String summarize(SummaryTask task) throws LlmException;

    /**
     * Updates the user's diary of {@code task.date()} (and promotes durable facts to MEMORY.md) through
     * {@code editor}, the only way to read and change documents.
     *
     * @return a short account of what was done, or {@code [SILENT]} when nothing was worth keeping
     */
    String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException;

    /**
     * Finds candidates of {@code task.type()} in the span: what to remember about the user
     * (personal), how a task succeeded or failed (procedural), how a tool behaved (tool).
     * An empty list when there is nothing of that kind.
     */
    default List<MemoryCandidate> extractMemories(ExtractTask task) throws LlmException {
        throw new LlmException(id() + " does not extract memories", false, null);
    }

    /**
     * Decides whether the candidate is new (ADD), rewrites one of {@code task.neighbours()}
     * (UPDATE, naming its id), or is already known (NOOP).
     */
    default MergeDecision mergeMemory(MergeTask task) throws LlmException {
        throw new LlmException(id() + " does not merge memories", false, null);
    }

    @Override
    default void close() {}
}
