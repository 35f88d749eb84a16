package io.reme.llm;

/** What a worker is asked to do with a span of conversation. */
public enum LlmKind {
    /** Write the structured summary that replaces the span in the context. */
    COMPACT,
    /** Update the daily diary (and MEMORY.md) of the conversation's date. */
    DIARY,
    /** Extract personal, procedural and tool memories. */
    EXTRACT
}
