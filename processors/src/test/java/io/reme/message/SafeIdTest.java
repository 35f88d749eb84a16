package io.reme.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SafeIdTest {
    /** The alphabet as documented, to hold the hand-written check to it. */
    private static final Pattern DOCUMENTED = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a",
                "Z",
                "7",
                "acme",
                "tenant-1",
                "s_2.b-3",
                "a.",
                "0123456789012345678901234567890123456789012345678901234567890123"
            })
    void acceptsTheAlphabet(String id) {
        assertTrue(SafeId.isSafe(id));
        assertNull(SafeId.problem("session", id));
        assertEquals(id, SafeId.require("session", id));
        assertTrue(DOCUMENTED.matcher(id).matches());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                ".hidden",
                "_a",
                "-a",
                "..",
                "a/b",
                "a b",
                "a\u0000b",
                "a\nb",
                "caf\u00e9",
                "\u0661\u0662",
                "\uff41",
                "a:b",
                "a\\b",
                "01234567890123456789012345678901234567890123456789012345678901234"
            })
    void refusesEverythingElse(String id) {
        assertFalse(SafeId.isSafe(id));
        assertFalse(DOCUMENTED.matcher(id).matches());
        String problem = SafeId.problem("session", id);
        assertTrue(problem != null && problem.startsWith("session "), problem);
        assertThrows(IllegalArgumentException.class, () -> SafeId.require("session", id));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "a\nb"})
    void aRefusalPrintsNoControlCharacters(String id) {
        String problem = SafeId.problem("tenant", id);
        assertFalse(problem.chars().anyMatch(Character::isISOControl), problem);
    }

    @Test
    void nullIsRefused() {
        assertFalse(SafeId.isSafe(null));
        assertEquals("user is required", SafeId.problem("user", null));
    }
}
