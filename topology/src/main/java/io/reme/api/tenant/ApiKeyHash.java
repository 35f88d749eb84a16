package io.reme.api.tenant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Issued API keys and their hashes. A key reads {@code rk_<id>_<secret>}: the id (16 hex digits)
 * finds its record in one lookup, the secret is 256 random bits. Only the SHA-256 of the whole key
 * is stored. A plain hash, not a slow or keyed one: with 256 random bits there is nothing to guess,
 * and a key hashed with a deployment secret would die with that secret's rotation.
 */
public final class ApiKeyHash {
    static final String PREFIX = "rk_";
    private static final int ID_LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A freshly issued key: the text handed out once and its id. */
    record Issued(String id, String key) {}

    private ApiKeyHash() {}

    static Issued issue() {
        byte[] id = new byte[ID_LENGTH / 2];
        byte[] secret = new byte[32];
        RANDOM.nextBytes(id);
        RANDOM.nextBytes(secret);
        String idText = HexFormat.of().formatHex(id);
        return new Issued(
                idText,
                PREFIX + idText + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
    }

    /** The id an issued key names, or null when the text is not shaped like one. */
    static String idOf(String key) {
        if (key.length() < PREFIX.length() + ID_LENGTH + 2
                || !key.startsWith(PREFIX)
                || key.charAt(PREFIX.length() + ID_LENGTH) != '_') {
            return null;
        }
        String id = key.substring(PREFIX.length(), PREFIX.length() + ID_LENGTH);
        return id.chars().allMatch(c -> Character.digit(c, 16) >= 0 && !Character.isUpperCase(c)) ? id : null;
    }

    /** SHA-256 of the key's UTF-8 bytes. */
    public static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    static String hex(String key) {
        return HexFormat.of().formatHex(digest(key));
    }

    /** Whether {@code key} hashes to {@code hexHash}, compared in constant time. */
    static boolean matches(String key, String hexHash) {
        byte[] expected;
        try {
            expected = HexFormat.of().parseHex(hexHash);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(digest(key), expected);
    }
}
