package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SessionKeyTest {
    @Test
    void paddedKeysAreWhatTheFormatterWrote() {
        // Stores and changelogs hold keys written with String.format: the same sequence must name the same key.
        for (long n : new long[] {0, 1, 9, 10, 42, 999_999, 1_764_493_200_000L, Long.MAX_VALUE, -1, Long.MIN_VALUE}) {
            assertEquals(String.format("%019d", n), SessionKey.padded(n));
        }
        assertEquals(String.format("%s/%s/%019d", "t1", "s1", 7L), new SessionKey("t1", "s1").messageKey(7));
    }
}
