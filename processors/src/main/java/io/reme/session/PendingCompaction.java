package io.reme.session;

import java.time.Instant;
import java.util.Objects;

/** The one compaction a session may have in flight: which request, which epoch, which span. */
public record PendingCompaction(String requestId, long epoch, long fromSeq, long toSeq, int messageCount,
        long tokens, Instant requestedAt) {
    public PendingCompaction {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(requestedAt, "requestedAt");
    }

    public boolean matches(String otherRequestId, long otherEpoch) {
        return requestId.equals(otherRequestId) && epoch == otherEpoch;
    }
}
