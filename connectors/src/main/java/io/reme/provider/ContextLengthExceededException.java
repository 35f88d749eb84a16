package io.reme.provider;

/**
 * The model refused the prompt as longer than its context. Never retryable: the same prompt would be
 * refused again. The session processor halves the span of the next compaction instead; a diary update
 * or a memory extraction is run again by the worker on each half of its span in turn.
 */
public final class ContextLengthExceededException extends LlmException {
    private static final long serialVersionUID = 1L;

    public ContextLengthExceededException(String message, Throwable cause) {
        super(message, false, cause);
    }
}
