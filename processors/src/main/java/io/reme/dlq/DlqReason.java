package io.reme.dlq;

/** Why a record went to the dead-letter topic; the name is the value of the reason header. */
public enum DlqReason {
    /** The record (key, value and headers) is larger than the configured input limit. */
    TOO_LARGE,
    /** The value is not a JSON object. */
    MALFORMED_JSON,
    /** A required field is absent or empty. */
    MISSING_FIELD,
    /** A tenant, session or user ID is outside the safe alphabet or too long. */
    INVALID_ID,
    /** The record key is not {@code tenant/session} of the envelope. */
    KEY_MISMATCH,
    /** The role is not one of user, assistant, system, tool. */
    INVALID_ROLE,
    /** The content or a block of it is malformed or of an unsupported type. */
    INVALID_CONTENT,
    /**
     * The time field is not ISO-8601 or epoch milliseconds, or the message's time or its record's
     * timestamp lies outside the accepted bounds ({@code TimeBounds}: too old, or too far ahead).
     */
    INVALID_TIME,
    /** An LLM result could not be read. */
    INVALID_RESULT,
    /**
     * An LLM request failed after all retries: a compaction by a worker, a diary update or memory
     * extraction by the session processor once it gives the span up. The value is the request as on
     * {@code llm.requests}, which {@code replay-dlq} sends again.
     */
    LLM_FAILED,
    /** A memory could not be embedded after all retries. */
    EMBEDDING_FAILED,
    /**
     * An LLM result whose request ID this deployment did not issue, or a diary edit without a valid
     * signature: written by someone without the request secret.
     */
    UNAUTHENTICATED,
    /**
     * A signed record of an earlier life of its session, before the session was erased and written again: an
     * LLM result of a request the session's current incarnation did not issue. Authentic, but not this
     * session's any more; never applied.
     */
    EARLIER_INCARNATION,
    /** An unexpected error while processing a valid-looking record; the record is kept here for replay. */
    PROCESSING_ERROR,
    /** An output made from the record was larger than its topic accepts; the output was dropped. */
    OUTPUT_TOO_LARGE,
    /** An output made from the record could not be serialised or was refused as invalid by the broker; it was dropped. */
    OUTPUT_REJECTED,
    /**
     * A memory the LLM workers extracted was new while its tenant was at its policy's memory count
     * ({@code maxMemories}); it was not written. The value is the memory as it would have gone to
     * {@code memories.pending}.
     */
    MEMORY_QUOTA
}
