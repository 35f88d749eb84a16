package io.reme.erasure;

import io.reme.llm.RequestSecret;
import io.reme.message.SafeId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The marker a session task sends on {@code dialog}, keyed {@link Erasure#key()}, to have the dialog sink
 * delete what it archived for an erased user (or tenant) from that task's partition: the lines of
 * sessions that began in {@code partition} before the erasure request's {@code offset} there (a
 * session's incarnation is 1 + the offset of the message that began it, so every such session has an
 * incarnation of at most {@code offset}), and the other files of the user's folder last changed at or
 * before the request's time.
 *
 * <p>What a marker deletes is therefore what its erasure covered and nothing written since: a marker
 * that arrives late (its partition lagged behind the others) or is produced again leaves the archive of
 * sessions begun after the erasure alone, so the sink applies every marker that passes its check, each
 * as often as it comes. It travels as headers: the {@link Erasure#HEADER} with the erasure ID,
 * {@link #POSITION} ({@code partition:offset}), {@link #REQUESTED_AT} (epoch milliseconds) and
 * {@link #SIGNATURE}, an HMAC of all of them, tenant and user under the deployment's request secret, so a
 * writer to {@code dialog} without the secret cannot delete, nor widen what a marker deletes.
 *
 * @param user the erased user, or {@link Erasure#ALL_USERS} for the whole tenant
 */
public record ErasureMarker(
        String tenant, String user, String erasureId, int partition, long offset, Instant requestedAt) {
    public static final String SIGNATURE = "reme.erasure.signature";
    public static final String POSITION = "reme.erasure.position";
    public static final String REQUESTED_AT = "reme.erasure.requested-at";

    public ErasureMarker {
        SafeId.require("tenant", tenant);
        if (!Erasure.ALL_USERS.equals(user)) {
            SafeId.require("user", user);
        }
        SafeId.require("erasure id", erasureId);
        Objects.requireNonNull(requestedAt, "requestedAt");
    }

    /** The marker of {@code erasure}, read at {@code offset} of the session partition {@code partition}. */
    public static ErasureMarker of(Erasure erasure, int partition, long offset) {
        return new ErasureMarker(
                erasure.tenant(),
                erasure.user() == null ? Erasure.ALL_USERS : erasure.user(),
                erasure.erasureId(),
                partition,
                offset,
                erasure.requestedAt());
    }

    public String key() {
        return Erasure.key(tenant, erasedUser());
    }

    /** The user whose folder it erases, or null for the whole tenant. */
    public String erasedUser() {
        return Erasure.ALL_USERS.equals(user) ? null : user;
    }

    /** Whether a line archived from a session of {@code partition} and {@code incarnation} is one this marker's erasure removed. */
    public boolean erased(int partition, long incarnation) {
        return partition == this.partition && incarnation <= offset;
    }

    public Headers headers(RequestSecret secret) {
        return new RecordHeaders()
                .add(Erasure.HEADER, erasureId.getBytes(StandardCharsets.UTF_8))
                .add(POSITION, (partition + ":" + offset).getBytes(StandardCharsets.US_ASCII))
                .add(REQUESTED_AT, Long.toString(requestedAt.toEpochMilli()).getBytes(StandardCharsets.US_ASCII))
                .add(SIGNATURE, sign(secret).getBytes(StandardCharsets.US_ASCII));
    }

    private String sign(RequestSecret secret) {
        return secret.signErasureMarker(tenant, user, signedText());
    }

    private String signedText() {
        return erasureId + "\0" + partition + ":" + offset + "\0" + requestedAt.toEpochMilli();
    }

    /**
     * The marker a record keyed {@code key} with the headers {@code header} gives (a header's value as
     * text, or null), or null when it is not one the deployment signed: no key of the form
     * {@code tenant/user}, a header missing or malformed, or a signature that does not match them all.
     */
    public static ErasureMarker verified(RequestSecret secret, String key, UnaryOperator<String> header) {
        int slash = key == null ? -1 : key.indexOf('/');
        String erasureId = header.apply(Erasure.HEADER);
        String position = header.apply(POSITION);
        String requestedAt = header.apply(REQUESTED_AT);
        String signature = header.apply(SIGNATURE);
        if (slash < 0 || erasureId == null || position == null || requestedAt == null || signature == null) {
            return null;
        }
        int colon = position.indexOf(':');
        ErasureMarker marker;
        try {
            marker = new ErasureMarker(
                    key.substring(0, slash),
                    key.substring(slash + 1),
                    erasureId,
                    Integer.parseInt(position.substring(0, Math.max(colon, 0))),
                    Long.parseLong(position.substring(colon + 1)),
                    Instant.ofEpochMilli(Long.parseLong(requestedAt)));
        } catch (IllegalArgumentException e) {
            return null;
        }
        // The text signed is rebuilt from the parsed parts, so "+1:07" cannot pass for "1:7".
        return marker.headerForm(position, requestedAt)
                        && secret.verifyErasureMarker(marker.tenant, marker.user, marker.signedText(), signature)
                ? marker
                : null;
    }

    private boolean headerForm(String position, String requestedAt) {
        return position.equals(partition + ":" + offset)
                && requestedAt.equals(Long.toString(this.requestedAt.toEpochMilli()));
    }
}
