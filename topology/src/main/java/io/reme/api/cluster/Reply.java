package io.reme.api.cluster;

import io.reme.api.ApiException;
import io.reme.json.Json;

/**
 * One answer between instances, and a keyed read's answer wherever it was read: its status, its JSON
 * body, the {@code Retry-After} the answering side set (null when none) and whether a standby replica
 * answered because the owner could not. What {@link InstanceClient} receives from another instance,
 * {@link OwnerRouting} returns (read here or relayed), and the API sends on as it is.
 *
 * @param standby whether a standby replica answered because the owner could not
 */
public record Reply(int status, byte[] body, String retryAfter, boolean standby) {
    public Reply(int status, byte[] body) {
        this(status, body, null, false);
    }

    /** {@code value} as the JSON body. */
    public static Reply json(int status, Object value) {
        return new Reply(status, Json.bytes(value));
    }

    /** A 404 with the API's error body. */
    public static Reply notFound(String code, String message) {
        return json(404, new ApiException(404, code, message).body());
    }

    Reply fromStandby() {
        return new Reply(status, body, retryAfter, true);
    }
}
