package io.reme.llm;

/** Why a request ended {@link LlmStatus#FAILED}, where the session processor acts on the difference. */
public enum LlmFailure {
    /** Anything else: the session waits out its backoff and asks again for the same kind of span. */
    ERROR,
    /** The model refused the prompt as longer than its context: the next span must be smaller. */
    CONTEXT_LENGTH
}
