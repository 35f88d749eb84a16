package io.reme.llm;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A deployment's shared secret: the key of the HMAC-SHA256 that names LLM requests and signs the workers'
 * results, diary edits and erasure markers. Request IDs stay deterministic (the same name always gives the
 * same ID, so a replayed task re-issues the same request) but cannot be computed without the secret. An ID
 * alone does not authenticate an answer, since it travels in clear on {@code llm.requests}: a result is
 * applied only with the workers' signature over the whole record, so a writer to {@code llm.results}
 * without the secret cannot answer a pending request even when it read the request. Every instance and worker of a
 * deployment must share it. Immutable and thread-safe; {@link #toString} never shows the key.
 */
public final class RequestSecret {
    /** The shortest secret accepted, in bytes of its UTF-8 text: 32 is 128 bits of hex. */
    public static final int MIN_LENGTH = 32;

    private static final String ALGORITHM = "HmacSHA256";
    /** Separate purposes never produce the same MAC for the same input. */
    private static final byte[] REQUEST_ID = "reme-request-id\0".getBytes(StandardCharsets.UTF_8);

    private static final byte[] DIARY_EDIT = "reme-diary-edit\0".getBytes(StandardCharsets.UTF_8);
    /** Results on llm.results: neither a diary edit's signature nor a request id passes for one. */
    private static final byte[] LLM_RESULT = "reme-llm-result\0".getBytes(StandardCharsets.UTF_8);
    /**
     * Erasure markers on the dialog topic: a diary edit's signature never passes for one, nor does a marker
     * of before they named their position (they signed a domain without the "-2").
     */
    private static final byte[] ERASURE_MARKER = "reme-erasure-marker-2\0".getBytes(StandardCharsets.UTF_8);
    /** Domain of the keys instances use on a tenant's behalf: never a request id or a signature. */
    private static final byte[] INTERNAL_KEY = "reme-internal-key\0".getBytes(StandardCharsets.UTF_8);
    /** Calls between instances: proof that the caller holds the secret, for one request at one time. */
    private static final byte[] INSTANCE_CALL = "reme-instance-call\0".getBytes(StandardCharsets.UTF_8);

    private final SecretKeySpec key;

    private RequestSecret(byte[] key) {
        this.key = new SecretKeySpec(key, ALGORITHM);
    }

    /** The secret as configured (or as generated into the data directory). */
    public static RequestSecret of(String text) {
        Objects.requireNonNull(text, "secret");
        byte[] bytes = text.trim().getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_LENGTH) {
            throw new IllegalArgumentException("must be at least " + MIN_LENGTH + " characters (got " + bytes.length
                    + "); e.g. openssl rand -hex 32");
        }
        return new RequestSecret(bytes);
    }

    /** 64 hex characters of fresh randomness, the form {@link #of} reads. */
    public static String generate() {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** A fresh secret nobody else knows: for tests and for tools that issue requests nobody answers. */
    public static RequestSecret random() {
        return of(generate());
    }

    /**
     * The request ID of {@code name} (e.g. {@code tenant/session#epoch}): the first 128 bits of its
     * HMAC, shaped as a version-8 (custom) UUID so it reads like the IDs it replaces.
     */
    public String requestId(String name) {
        ByteBuffer mac = ByteBuffer.wrap(mac(REQUEST_ID, name.getBytes(StandardCharsets.UTF_8)));
        long high = (mac.getLong() & ~0xF000L) | 0x8000L;
        long low = (mac.getLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low).toString();
    }

    /** Whether {@code requestId} is the one this secret gives {@code name}; compared in constant time. */
    public boolean issued(String name, String requestId) {
        return same(requestId(name), requestId);
    }

    /** The signature of a diary edit record (its key and value bytes), as lowercase hex. */
    public String signEdit(byte[] key, byte[] value) {
        return HexFormat.of().formatHex(mac(DIARY_EDIT, lengthPrefixed(key), value));
    }

    /** Whether {@code signature} is this secret's signature of the edit; compared in constant time. */
    public boolean verifyEdit(byte[] key, byte[] value, String signature) {
        return same(signEdit(key, value), signature);
    }

    /** The signature of a worker's result record (its key and value bytes), as lowercase hex. */
    public String signResult(byte[] key, byte[] value) {
        return HexFormat.of().formatHex(mac(LLM_RESULT, lengthPrefixed(key), value));
    }

    /** Whether {@code signature} is this secret's signature of the result; compared in constant time. */
    public boolean verifyResult(byte[] key, byte[] value, String signature) {
        return same(signResult(key, value), signature);
    }

    /**
     * The signature of an erasure marker for {@code user} ({@code *} for the whole tenant) of
     * {@code tenant}, over {@code marker} (its erasure ID, position and time as the marker writes them), as
     * lowercase hex.
     */
    public String signErasureMarker(String tenant, String user, String marker) {
        return HexFormat.of()
                .formatHex(mac(
                        ERASURE_MARKER,
                        lengthPrefixed(tenant.getBytes(StandardCharsets.UTF_8)),
                        lengthPrefixed(user.getBytes(StandardCharsets.UTF_8)),
                        marker.getBytes(StandardCharsets.UTF_8)));
    }

    /** Whether {@code signature} is this secret's signature of the erasure marker; compared in constant time. */
    public boolean verifyErasureMarker(String tenant, String user, String marker, String signature) {
        return same(signErasureMarker(tenant, user, marker), signature);
    }

    /**
     * The key instances of a deployment use among themselves on the tenant's behalf when no caller's
     * key is at hand (the workers' memory lookups), as lowercase hex: every holder of the secret
     * derives the same one, so tenants whose keys exist only as hashes can still be served across
     * instances.
     */
    public String internalKey(String tenant) {
        return HexFormat.of().formatHex(mac(INTERNAL_KEY, tenant.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The proof of a call from one instance of the deployment to another: the HMAC of the request's method, path
     * and credential at {@code epochSecond}, as lowercase hex. A tenant's key alone cannot make one.
     */
    public String signInstanceCall(String method, String path, String authorization, long epochSecond) {
        return HexFormat.of()
                .formatHex(mac(
                        INSTANCE_CALL,
                        lengthPrefixed(method.getBytes(StandardCharsets.UTF_8)),
                        lengthPrefixed(path.getBytes(StandardCharsets.UTF_8)),
                        lengthPrefixed(
                                authorization == null ? new byte[0] : authorization.getBytes(StandardCharsets.UTF_8)),
                        Long.toString(epochSecond).getBytes(StandardCharsets.UTF_8)));
    }

    /** Whether {@code signature} is this secret's proof of the call; compared in constant time. */
    public boolean verifyInstanceCall(
            String method, String path, String authorization, long epochSecond, String signature) {
        return same(signInstanceCall(method, path, authorization, epochSecond), signature);
    }

    /** Whether {@code presented} is {@code expected} (ASCII: hex or a UUID), compared in constant time. */
    private static boolean same(String expected, String presented) {
        return presented != null
                && MessageDigest.isEqual(
                        expected.getBytes(StandardCharsets.US_ASCII), presented.getBytes(StandardCharsets.UTF_8));
    }

    /** The key's length first, so no split of the same bytes into key and value signs alike. */
    private static byte[] lengthPrefixed(byte[] key) {
        byte[] bytes = key == null ? new byte[0] : key;
        return ByteBuffer.allocate(4 + bytes.length)
                .putInt(bytes.length)
                .put(bytes)
                .array();
    }

    private byte[] mac(byte[]... parts) {
        try {
            // A Mac is not thread-safe and costs about a microsecond to make: one per call.
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    @Override
    public String toString() {
        return "RequestSecret[hidden]";
    }
}
