package io.reme.llm;

import java.time.Instant;
import java.util.Objects;

/**
 * A worker's answer to an {@link LlmRequest}, keyed like the request. For {@code COMPACT} the
 * payload is the summary Markdown; {@code error} explains a {@code FAILED} result and
 * {@code failure} classifies it (null when OK, and in results written before it existed);
 * {@code incarnation} is the request's, echoed.
 */
public record LlmResult(
        String requestId,
        long epoch,
        LlmKind kind,
        String tenant,
        String session,
        LlmStatus status,
        String payload,
        String error,
        int attempts,
        Instant completedAt,
        LlmFailure failure,
        long incarnation) {

    public LlmResult {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        payload = payload == null ? "" : payload;
        if (status == LlmStatus.FAILED && failure == null) {
            failure = LlmFailure.ERROR;
        }
    }

    /** A result whose failure, if it failed, is a plain {@link LlmFailure#ERROR}. */
    public LlmResult(
            String requestId,
            long epoch,
            LlmKind kind,
            String tenant,
            String session,
            LlmStatus status,
            String payload,
            String error,
            int attempts,
            Instant completedAt) {
        this(requestId, epoch, kind, tenant, session, status, payload, error, attempts, completedAt, null, 0);
    }

    public static LlmResult ok(LlmRequest request, String payload, int attempts, Instant at) {
        return new LlmResult(
                request.requestId(),
                request.epoch(),
                request.kind(),
                request.dialog().tenant(),
                request.dialog().session(),
                LlmStatus.OK,
                payload,
                null,
                attempts,
                at,
                null,
                request.dialog().incarnation());
    }

    public static LlmResult failed(LlmRequest request, String error, int attempts, Instant at) {
        return failed(request, error, attempts, at, LlmFailure.ERROR);
    }

    public static LlmResult failed(LlmRequest request, String error, int attempts, Instant at, LlmFailure failure) {
        return new LlmResult(
                request.requestId(),
                request.epoch(),
                request.kind(),
                request.dialog().tenant(),
                request.dialog().session(),
                LlmStatus.FAILED,
                "",
                error,
                attempts,
                at,
                failure,
                request.dialog().incarnation());
    }
}
