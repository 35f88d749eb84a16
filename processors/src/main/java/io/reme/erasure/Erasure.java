package io.reme.erasure;

import io.reme.json.Json;
import io.reme.message.SafeId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Objects;
import org.apache.kafka.common.header.Headers;

/**
 * A request to erase one user of a tenant ({@code user} set) or the whole tenant ({@code user}
 * null). The API produces it, signed with the deployment's secret, to every partition of the
 * {@code messages}, {@code diary.edits} and {@code memories} topics in one transaction, marked by the
 * {@link #HEADER} header: it is the erasure's record, and everything else follows from it. Each
 * partition's processor removes what it holds and keeps an {@link ErasureReport}, in the same
 * transaction as what it removed, so a crash at any point leaves the erasure to resume where it was.
 *
 * @param memories memories the API tombstoned itself before sending the request, as erasures of before
 *     did; 0 now that the memory index tombstones them
 */
public record Erasure(String erasureId, String tenant, String user, Instant requestedAt, long memories) {
    /** Marks a control record on an input topic as an erasure request (the value is this record as JSON). */
    public static final String HEADER = "reme.erasure";
    /** Stands for "every user" in keys; not a valid user ID, so it never names one. */
    public static final String ALL_USERS = "*";

    public Erasure {
        SafeId.require("erasure id", erasureId);
        SafeId.require("tenant", tenant);
        if (user != null) {
            SafeId.require("user", user);
        }
        Objects.requireNonNull(requestedAt, "requestedAt");
    }

    public static Erasure ofUser(String erasureId, String tenant, String user, Instant at, long memories) {
        return new Erasure(erasureId, tenant, Objects.requireNonNull(user, "user"), at, memories);
    }

    public static Erasure ofTenant(String erasureId, String tenant, Instant at, long memories) {
        return new Erasure(erasureId, tenant, null, at, memories);
    }

    /** {@code tenant/user}, or {@code tenant/*} for the whole tenant: the key of the request and of its reports. */
    public String key() {
        return key(tenant, user);
    }

    public static String key(String tenant, String user) {
        return tenant + "/" + (user == null ? ALL_USERS : user);
    }

    /**
     * The key of the request on {@code memories}, whose other keys are {@code tenant/<memory id>}: one that
     * no memory can have, so that compaction never takes a memory for the request or the other way round.
     */
    public String memoriesKey() {
        return key() + "#erasure";
    }

    /** Whether something of {@code user} (in this request's tenant) is to be erased. */
    public boolean covers(String someUser) {
        return user == null || user.equals(someUser);
    }

    /** The key prefix of the stores keyed {@code tenant/user/...} that holds everything erased. */
    public String userPrefix() {
        return tenant + "/" + (user == null ? "" : user + "/");
    }

    public static boolean isErasure(Headers headers) {
        return headers != null && headers.lastHeader(HEADER) != null;
    }

    public byte[] toJson() {
        try {
            return Json.MAPPER.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Erasure fromJson(byte[] value) throws IOException {
        return Json.MAPPER.readValue(value, Erasure.class);
    }
}
