package io.reme.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A session's full context view ({@code GET /v1/sessions/{session}/context}): the summary of the compacted past, the
 * live messages with their token counts, the token stats and the compaction's state.
 *
 * @param tenant the tenant
 * @param session the session
 * @param user the session's user
 * @param summary the structured summary (Markdown), empty before the first compaction
 * @param summaryVersion how many summaries were applied
 * @param summarySource what the summary was made from, or null before the first compaction
 * @param messages the live messages (the served window, or every one with {@code window=all})
 * @param tokens the token stats
 * @param compaction the compaction's state (pending request, last summary and failure, counters), as served
 */
public record SessionContext(
        String tenant,
        String session,
        String user,
        String summary,
        long summaryVersion,
        SummarySource summarySource,
        List<LiveMessage> messages,
        Tokens tokens,
        JsonNode compaction) {
    public SessionContext {
        messages = messages == null ? List.of() : List.copyOf(messages);
    }

    /**
     * The span of the session's messages a summary was made from.
     *
     * @param fromSeq the first message's sequence number
     * @param toSeq the last message's
     * @param messages how many
     */
    public record SummarySource(long fromSeq, long toSeq, long messages) {}

    /**
     * A live message.
     *
     * @param seq its sequence number in the session
     * @param tokens its tokens
     * @param message the normalised message (tool outputs possibly truncated), as served
     */
    public record LiveMessage(long seq, long tokens, JsonNode message) {
        /** The message's id, as it was sent or as the server gave it. */
        public String id() {
            return message == null ? null : message.path("id").asText(null);
        }
    }
}
