package io.reme.erasure;

import io.reme.llm.RequestSecret;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers of the marker a session task sends on {@code dialog} to have the dialog sink delete
 * an erased user's (or tenant's) files: the {@link Erasure#HEADER} with the erasure ID, and
 * {@link #SIGNATURE}, an HMAC of tenant, user and erasure ID under the deployment's request secret.
 * The sink deletes only for a valid signature ({@link RequestSecret#verifyErasureMarker}), so a
 * writer to {@code dialog} without the secret cannot erase archives.
 */
public final class ErasureMarker {
    public static final String SIGNATURE = "reme.erasure.signature";

    private ErasureMarker() {}

    /** The headers of {@code erasure}'s marker, which is keyed {@link Erasure#key()}. */
    public static Headers headers(RequestSecret secret, Erasure erasure) {
        String user = erasure.user() == null ? Erasure.ALL_USERS : erasure.user();
        String signature = secret.signErasureMarker(erasure.tenant(), user, erasure.erasureId());
        return new RecordHeaders()
                .add(Erasure.HEADER, erasure.erasureId().getBytes(StandardCharsets.UTF_8))
                .add(SIGNATURE, signature.getBytes(StandardCharsets.US_ASCII));
    }
}
