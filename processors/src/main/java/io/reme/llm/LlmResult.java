package io.reme.llm;

import java.time.Instant;
import java.util.Objects;

/**
 * A worker's answer to an {@link LlmRequest}, keyed like the request. For {@code COMPACT} the
 * payload is the summary Markdown; {@code error} explains a {@code FAILED} result.
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
        Instant completedAt) {

    public LlmResult {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        payload = payload == null ? "" : payload;
    }

    public static LlmResult ok(LlmRequest request, String payload, int attempts, Instant at) {
        return new LlmResult(request.requestId(), request.epoch(), request.kind(), request.tenant(),
                request.session(), LlmStatus.OK, payload, null, attempts, at);
    }

    public static LlmResult failed(LlmRequest request, String error, int attempts, Instant at) {
        return new LlmResult(request.requestId(), request.epoch(), request.kind(), request.tenant(),
                request.session(), LlmStatus.FAILED, "", error, attempts, at);
    }
}
