package io.reme.query;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEditProcessor;
import io.reme.diary.DocumentKey;
import io.reme.message.SafeId;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Answers {@code GET /v1/diary/{user}/{YYYY-MM-DD|MEMORY}}: a user's daily diary or long-term
 * memory document as the single writer last applied it, from the instance that owns it.
 */
public final class DiaryQueries {
    private final KafkaStreams streams;
    private final OwnerRouting routing;

    DiaryQueries(KafkaStreams streams, OwnerRouting routing) {
        this.streams = streams;
        this.routing = routing;
    }

    OwnerRouting.Answer document(String tenant, String user, String name, boolean forwarded, String authorization) {
        String problem = SafeId.problem("user", user);
        if (problem != null) {
            throw new ApiException(400, "invalid_user", problem);
        }
        if (!DocumentKey.LONG_TERM.equals(name)) {
            try {
                // Four-digit years only: ISO also reads "+10000-01-01", a file name the diaries never have.
                if (name.length() != 10) {
                    throw new DateTimeParseException("not YYYY-MM-DD", name, 0);
                }
                LocalDate.parse(name);
            } catch (DateTimeParseException e) {
                throw new ApiException(400, "invalid_document", "the document is a date (YYYY-MM-DD) or MEMORY");
            }
        }
        DocumentKey key = new DocumentKey(tenant, user, name);
        return routing.route(
                DiaryEditProcessor.STORE,
                key.key(),
                "/v1/diary/" + user + "/" + name,
                forwarded,
                authorization,
                partition -> read(key, partition));
    }

    private OwnerRouting.Answer read(DocumentKey key, int partition) {
        ReadOnlyKeyValueStore<String, DiaryDocument> store = streams.store(StoreQueryParameters.fromNameAndType(
                        DiaryEditProcessor.STORE, QueryableStoreTypes.<String, DiaryDocument>keyValueStore())
                .withPartition(partition));
        DiaryDocument document = store.get(key.key());
        if (document == null) {
            return OwnerRouting.notFound("document_not_found", "no " + key.path() + " for user " + key.user());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", document.user());
        body.put("path", key.path());
        body.put("version", document.version());
        body.put("updatedAt", document.updatedAt());
        body.put("author", document.author());
        body.put("content", document.content());
        return new OwnerRouting.Answer(200, OwnerRouting.json(body));
    }
}
