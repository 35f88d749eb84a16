package io.reme.embedding;

/**
 * An embedding call that failed; {@code retryable} says whether trying again can help (timeouts,
 * HTTP 429 and 5xx of a remote provider), as opposed to a bad input or a broken model.
 */
public final class EmbeddingException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean retryable;

    public EmbeddingException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
