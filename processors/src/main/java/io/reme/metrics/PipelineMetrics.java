package io.reme.metrics;

import io.reme.dlq.DlqReason;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmStatus;

/**
 * Events worth counting, reported by the session processors, the diary processor and the workers.
 * Implementations are called per record on stream and worker threads: they must be thread-safe,
 * cheap and never throw. Tenants are passed as they are; the implementation decides which of them
 * may become label values (tenant ids are unbounded). Counts are of processing, not of committed
 * results: a task that is retried under exactly-once reports its records again, as Kafka Streams'
 * own metrics do.
 */
public interface PipelineMetrics {
    /** Reports nothing; for tests and tools that run the topology without exporting metrics. */
    PipelineMetrics NONE = new PipelineMetrics() {};

    /** What happened to a session's compaction. */
    enum Compaction {
        REQUESTED,
        APPLIED,
        FAILED,
        INVALID_SUMMARY,
        TIMED_OUT
    }

    /** How one call to the LLM provider ended. */
    enum CallOutcome {
        OK,
        /** The provider answered, but the answer was refused (e.g. a summary missing a section). */
        INVALID_OUTPUT,
        TIMEOUT,
        ERROR
    }

    /** A valid message joined its session's window, counted as {@code tokens}. */
    default void messageIn(String tenant, int tokens) {}

    default void compaction(String tenant, Compaction event) {}

    /** A record went to the dead-letter topic. */
    default void deadLetter(DlqReason reason) {}

    /** One provider call, successful or not, and how long it took. */
    default void llmCall(LlmKind kind, CallOutcome outcome, long nanos) {}

    /** A request answered on {@code llm.results}, after all its attempts. */
    default void llmRequest(LlmKind kind, LlmStatus status) {}

    /**
     * Where a change of embedding model stands in one partition of {@code memories}: {@code scanned} of its
     * {@code total} offsets read by the re-embedder, and whether the partition's index has been told to switch.
     */
    default void reembedding(int partition, long scanned, long total, boolean switched) {}

    /** Memories given the vectors of the configured model by the re-embedder. */
    default void reembedded(int memories) {}
}
