package io.reme.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One search hit: a memory or diary chunk and its scores.
 *
 * @param id the memory's id
 * @param type its type
 * @param text its text
 * @param score the fused score
 * @param textScore BM25, or null when not in that list
 * @param vectorScore cosine, or null when not in that list
 * @param tenant the tenant
 * @param user its user, or null
 * @param session its session, or null
 * @param createdAt when it was written
 * @param updatedAt when it was last edited
 * @param conversationTime when what it remembers was said, or null
 * @param metadata its metadata ({@code path}, {@code startLine}, {@code endLine} for diary chunks)
 * @param vectorModel the embedding model of its vector, or null
 * @param target the user, task or tool name it is about
 * @param version its version
 * @param history earlier contents, newest first
 * @param context the text around it that helps find it, or null
 * @param contextTextScore BM25 over its text with its context, or null
 * @param contextVectorScore cosine of the query and its text with its context, or null
 * @param sources the spans of dialog it was written from
 */
public record Hit(
        String id,
        String type,
        String text,
        double score,
        Double textScore,
        Double vectorScore,
        String tenant,
        String user,
        String session,
        Instant createdAt,
        Instant updatedAt,
        Instant conversationTime,
        Map<String, String> metadata,
        String vectorModel,
        String target,
        long version,
        List<Revision> history,
        String context,
        Double contextTextScore,
        Double contextVectorScore,
        List<SourceSpan> sources) {
    public Hit {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        history = history == null ? List.of() : List.copyOf(history);
        sources = sources == null ? List.of() : List.copyOf(sources);
    }
}
