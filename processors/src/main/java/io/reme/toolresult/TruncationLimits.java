package io.reme.toolresult;

/**
 * Byte budgets for tool outputs: a generous one while the message is recent, a small one once it ages out.
 *
 * @param recentBytes limit for outputs in the most recent messages
 * @param oldBytes limit applied when a message leaves the recent window
 */
public record TruncationLimits(int recentBytes, int oldBytes) {

    public static final int DEFAULT_RECENT_BYTES = 100 * 1024;
    public static final int DEFAULT_OLD_BYTES = 3000;

    public TruncationLimits {
        if (oldBytes <= 0) {
            throw new IllegalArgumentException("oldBytes must be positive, got " + oldBytes);
        }
        // Aging out must never grow an excerpt, otherwise re-truncation would be a no-op.
        if (recentBytes < oldBytes) {
            throw new IllegalArgumentException(
                    "recentBytes (" + recentBytes + ") must be >= oldBytes (" + oldBytes + ")");
        }
    }

    public static TruncationLimits defaults() {
        return new TruncationLimits(DEFAULT_RECENT_BYTES, DEFAULT_OLD_BYTES);
    }
}
