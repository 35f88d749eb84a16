package io.reme.client;

import java.time.Instant;

/**
 * A session of the tenant, as the listing shows it.
 *
 * @param session the session
 * @param user its user
 * @param lastActivity when its last message was appended
 * @param liveMessages its live messages
 * @param liveTokens their tokens
 * @param summaryTokens its summary's tokens
 * @param threshold tokens summary and live messages may reach before a compaction is planned
 * @param windowUsage (liveTokens + summaryTokens) / threshold
 * @param pendingCompaction whether a compaction is in flight
 * @param summaryVersion how many summaries were applied
 * @param compactionFailures compactions that failed or got no result in time
 */
public record SessionEntry(
        String session,
        String user,
        Instant lastActivity,
        long liveMessages,
        long liveTokens,
        long summaryTokens,
        long threshold,
        double windowUsage,
        boolean pendingCompaction,
        long summaryVersion,
        long compactionFailures) {}
