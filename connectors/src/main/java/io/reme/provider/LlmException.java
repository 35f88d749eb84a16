package io.reme.provider;

/**
 * A provider call that failed; {@code retryable} says whether trying again can help (timeouts, 5xx, 429).
 * {@link ContextLengthExceededException} is the one failure the caller acts on by asking for less.
 */
public class LlmException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean retryable;

    public LlmException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
