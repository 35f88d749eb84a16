package io.reme.client;

import java.util.List;

/**
 * One page of {@code GET /v1/sessions}, newest activity first.
 *
 * @param sessions the page's sessions
 * @param nextCursor the cursor of the next page, null on the last
 * @param partial whether a partition did not answer
 * @param missingPartitions the partitions that did not
 */
public record SessionPage(
        List<SessionEntry> sessions, String nextCursor, boolean partial, List<Integer> missingPartitions) {
    public SessionPage {
        sessions = sessions == null ? List.of() : List.copyOf(sessions);
        missingPartitions = missingPartitions == null ? List.of() : List.copyOf(missingPartitions);
    }
}
