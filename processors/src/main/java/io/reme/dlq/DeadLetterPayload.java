package io.reme.dlq;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * What a dead letter carries of a rejected key or value: all of it when it is within the limit, so the
 * record can be replayed, else its first {@link #EXCERPT_BYTES} bytes. Either way the headers say the
 * original size and SHA-256 digest, so a cut payload can still be matched with what its producer sent.
 * A dead letter therefore never outgrows the limit it is given, and a poison pill cannot become a
 * second poison pill on the dead-letter topic.
 */
public final class DeadLetterPayload {
    /** Bytes of a payload kept when it is over the limit: enough to recognise it, never enough to matter. */
    public static final int EXCERPT_BYTES = 4096;
    /** Original headers kept on a dead letter, in bytes (names and values); later ones are dropped and counted. */
    public static final int MAX_ORIGINAL_HEADER_BYTES = 16 * 1024;

    private final byte[] bytes;
    private final int size;
    private final boolean truncated;
    private final byte[] original;

    private DeadLetterPayload(byte[] original, int maxBytes) {
        this.original = original;
        this.size = original == null ? 0 : original.length;
        this.truncated = original != null && original.length > maxBytes;
        this.bytes = truncated ? Arrays.copyOf(original, Math.min(EXCERPT_BYTES, maxBytes)) : original;
    }

    /** @param maxBytes the largest payload carried whole (the input limit for records read from topics) */
    public static DeadLetterPayload of(byte[] original, int maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
        return new DeadLetterPayload(original, maxBytes);
    }

    /** The bytes the dead letter carries: the whole payload, its excerpt, or null for a null payload. */
    public byte[] bytes() {
        return bytes;
    }

    public int size() {
        return size;
    }

    public boolean truncated() {
        return truncated;
    }

    /** Hex SHA-256 of the whole original payload, or null for a null payload. */
    public String sha256() {
        return original == null ? null : sha256(original);
    }

    /** Adds size, digest and whether it was cut, under {@code prefix} ({@code reme.dlq.value} or {@code .key}). */
    void describe(Headers headers, String prefix) {
        if (original == null) {
            return;
        }
        headers.add(prefix + ".size", utf8(Integer.toString(size)));
        headers.add(prefix + ".sha256", utf8(sha256()));
        headers.add(prefix + ".truncated", utf8(Boolean.toString(truncated)));
    }

    /** Copies original headers into {@code into} up to {@link #MAX_ORIGINAL_HEADER_BYTES}; returns how many were dropped. */
    static int copyBounded(Headers from, Headers into) {
        if (from == null) {
            return 0;
        }
        int used = 0;
        int dropped = 0;
        for (Header header : from) {
            int cost = header.key().length() + (header.value() == null ? 0 : header.value().length);
            if (used + cost > MAX_ORIGINAL_HEADER_BYTES) {
                dropped++;
                continue;
            }
            used += cost;
            into.add(header);
        }
        return dropped;
    }

    static String sha256(byte[] value) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static byte[] utf8(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
