package io.reme.session;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The one compaction a session may have in flight: which request, which epoch, which span, and the
 * tool calls without results it compacts (warned about once, when the compaction is applied).
 */
public record PendingCompaction(
        String requestId,
        long epoch,
        long fromSeq,
        long toSeq,
        int messageCount,
        long tokens,
        Instant requestedAt,
        List<String> unansweredCalls) {
    public PendingCompaction {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(requestedAt, "requestedAt");
        unansweredCalls = unansweredCalls == null ? List.of() : List.copyOf(unansweredCalls);
    }

    public PendingCompaction(
            String requestId,
            long epoch,
            long fromSeq,
            long toSeq,
            int messageCount,
            long tokens,
            Instant requestedAt) {
        this(requestId, epoch, fromSeq, toSeq, messageCount, tokens, requestedAt, List.of());
    }

    public boolean matches(String otherRequestId, long otherEpoch) {
        return requestId.equals(otherRequestId) && epoch == otherEpoch;
    }
}
