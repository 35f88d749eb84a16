package io.reme.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RequestSecretTest {
    private static final String NAME = "acme/s1#1";
    private static final RequestSecret ONE = RequestSecret.of("one-secret-0123456789abcdef0123456789");
    private static final RequestSecret TWO = RequestSecret.of("two-secret-0123456789abcdef0123456789");

    @Test
    void theSameSecretAndNameGiveTheSameIdSoAReplayReissuesTheSameRequest() {
        String id = ONE.requestId(NAME);
        assertEquals(id, ONE.requestId(NAME));
        assertEquals(
                id,
                RequestSecret.of("one-secret-0123456789abcdef0123456789").requestId(NAME),
                "another instance with the same secret");
        assertTrue(ONE.issued(NAME, id));
        assertEquals(8, UUID.fromString(id).version(), "shaped like the UUIDs it replaces");
    }

    @Test
    void idsDifferAcrossSecretsAndNames() {
        assertNotEquals(ONE.requestId(NAME), TWO.requestId(NAME));
        assertNotEquals(ONE.requestId(NAME), ONE.requestId("acme/s1#2"));
        assertFalse(TWO.issued(NAME, ONE.requestId(NAME)));
    }

    @Test
    void theOldGuessableIdIsNotIssued() {
        String oldStyle =
                UUID.nameUUIDFromBytes(NAME.getBytes(StandardCharsets.UTF_8)).toString();
        assertNotEquals(oldStyle, ONE.requestId(NAME));
        assertFalse(ONE.issued(NAME, oldStyle));
        assertFalse(ONE.issued(NAME, null));
    }

    @Test
    void shortSecretsAreRefusedWithoutEchoingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RequestSecret.of("hunter2"));
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        assertFalse(ONE.toString().contains("one-secret"));
        assertEquals(64, RequestSecret.generate().length());
    }

    @Test
    void anEditSignatureCoversKeyAndValue() {
        byte[] key = "acme/u1/MEMORY.md".getBytes(StandardCharsets.UTF_8);
        byte[] value = "{\"content\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        String signature = ONE.signEdit(key, value);
        assertTrue(ONE.verifyEdit(key, value, signature));
        assertFalse(TWO.verifyEdit(key, value, signature), "another secret");
        assertFalse(
                ONE.verifyEdit("acme/u2/MEMORY.md".getBytes(StandardCharsets.UTF_8), value, signature),
                "another document");
        assertFalse(ONE.verifyEdit(key, "{\"content\":\"y\"}".getBytes(StandardCharsets.UTF_8), signature));
        assertFalse(ONE.verifyEdit(key, value, null));
    }

    @Test
    void internalKeysAreTheSameForEveryHolderOfTheSecretAndNothingElse() {
        RequestSecret secret = RequestSecret.of("x".repeat(32));
        String key = secret.internalKey("acme");
        assertEquals(key, RequestSecret.of("x".repeat(32)).internalKey("acme"), "every instance derives the same");
        assertEquals(64, key.length());
        assertNotEquals(key, secret.internalKey("globex"));
        assertNotEquals(key, RequestSecret.of("y".repeat(32)).internalKey("acme"));
        // Its own domain: never the signature of an edit over the same bytes.
        assertNotEquals(key, secret.signEdit(new byte[0], "acme".getBytes(StandardCharsets.UTF_8)));
    }
}
