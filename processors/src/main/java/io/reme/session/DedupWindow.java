package io.reme.session;

import java.time.Duration;
import java.util.Objects;

/**
 * How far back a session remembers message IDs, so a client's retry is dropped even after newer
 * messages: a message whose ID was among the session's last {@code count} messages and was appended
 * less than {@code age} ago (processing time) is a duplicate. Older IDs are forgotten and may be used
 * again. The count bounds the store: at most {@code count} remembered IDs per session.
 */
public record DedupWindow(int count, Duration age) {
    public static final int DEFAULT_COUNT = 1_000;
    public static final Duration DEFAULT_AGE = Duration.ofHours(1);

    public DedupWindow {
        Objects.requireNonNull(age, "age");
        if (count < 1 || age.isNegative() || age.isZero()) {
            throw new IllegalArgumentException(
                    "the dedup window needs count >= 1 and age > 0 (got " + count + ", " + age + ")");
        }
    }

    public static DedupWindow defaults() {
        return new DedupWindow(DEFAULT_COUNT, DEFAULT_AGE);
    }
}
