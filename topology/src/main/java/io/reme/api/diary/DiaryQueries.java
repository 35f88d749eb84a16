package io.reme.api.diary;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.cluster.Reply;
import io.reme.api.cluster.StreamsStores;
import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.DiaryEditProcessor;
import io.reme.diary.DocumentKey;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.retry.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers {@code GET /v1/diary/{user}/{YYYY-MM-DD|MEMORY}}: a user's daily diary or long-term
 * memory document as the single writer last applied it, from the instance that owns it; and
 * {@code PUT} on the same path, a new version through {@code diary.edits} based on an expected one.
 */
public final class DiaryQueries {
    private static final Logger LOG = LoggerFactory.getLogger(DiaryQueries.class);
    /** Who an edit over HTTP is by, as the document's {@code author} shows it. */
    static final String AUTHOR = "api";
    /** How long a save waits for the single writer's decision; it is usually there in tens of milliseconds. */
    private static final Duration APPLY_WAIT = Duration.ofSeconds(10);

    private static final Duration POLL = Duration.ofMillis(50);

    private final StreamsStores streams;
    private final OwnerRouting routing;
    private final DiaryWriter writer;

    public DiaryQueries(StreamsStores streams, OwnerRouting routing, DiaryWriter writer) {
        this.streams = streams;
        this.routing = routing;
        this.writer = writer;
    }

    public Reply document(Caller caller, String user, String name, boolean forwarded) {
        String tenant = caller.tenant();
        DocumentKey key = key(tenant, user, name);
        return routing.route(
                DiaryEditProcessor.STORE,
                key.key(),
                "/v1/diary/" + user + "/" + name,
                forwarded,
                caller,
                partition -> read(key, partition));
    }

    /**
     * Saves a new version of a document ({@code PUT}, body {@code {"content", "expectedVersion"}}, 0 for
     * a document that does not exist yet) and waits until the single writer has decided: 200 with the
     * new version when this edit was applied; 409 {@code version_conflict} with the current document
     * when it is not at the expected version, before or after submitting (another edit won the race,
     * and the caller still holds its text to merge); 202 when no decision was seen within the wait.
     */
    public Reply save(Caller caller, String user, String name, DiarySave body) {
        String tenant = caller.tenant();
        DocumentKey key = key(tenant, user, name);
        long base = body.expectedVersion();
        Current before = current(caller, user, name, false);
        if (before.answer() != null) {
            return before.answer();
        }
        if (before.version() != base) {
            return conflict(key, base, before);
        }
        DiaryEdit edit = new DiaryEdit(
                UUID.randomUUID().toString(),
                tenant,
                user,
                name,
                base,
                body.content(),
                AUTHOR,
                Instant.now(),
                List.of());
        writer.submit(edit);
        LOG.info(
                "diary edit submitted tenant={} user={} document={} base={} editId={}",
                tenant,
                user,
                name,
                base,
                edit.editId());
        Optional<Current> applied;
        try {
            applied = Poll.first(APPLY_WAIT, POLL, () -> {
                Current now = current(caller, user, name, true);
                return now.answer() == null && now.version() > base ? Optional.of(now) : Optional.empty();
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while waiting for the edit");
        }
        if (applied.isPresent()) {
            Current now = applied.get();
            return edit.editId().equals(now.document().path("editId").asText())
                    ? Reply.json(200, now.document())
                    : conflict(key, base, now);
        }
        Map<String, Object> pending = new LinkedHashMap<>();
        pending.put("editId", edit.editId());
        pending.put("applied", false);
        pending.put("message", "the edit was submitted but not applied yet; read the document again shortly");
        return Reply.json(202, pending);
    }

    /** The document as its owner serves it: its version (0 if absent), or an answer to relay as it is (503). */
    private record Current(long version, JsonNode document, Reply answer) {}

    /** @param waiting a 503 (a rebalance) is "not decided yet" while waiting; before submitting it is the answer */
    private Current current(Caller caller, String user, String name, boolean waiting) {
        Reply answer;
        try {
            answer = document(caller, user, name, false);
        } catch (ApiException e) {
            if (waiting && e.status() == 503) {
                return new Current(-1, null, null);
            }
            throw e;
        }
        if (answer.status() == 404) {
            return new Current(0, null, null);
        }
        if (answer.status() != 200) {
            return waiting && answer.status() == 503 ? new Current(-1, null, null) : new Current(-1, null, answer);
        }
        try {
            JsonNode document = Json.MAPPER.readTree(answer.body());
            return new Current(document.path("version").asLong(), document, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Reply conflict(DocumentKey key, long base, Current current) {
        LOG.info(
                "diary edit conflict tenant={} user={} document={} base={} current={}",
                key.tenant(),
                key.user(),
                key.name(),
                base,
                current.version());
        Map<String, Object> body = new LinkedHashMap<>(new ApiException(
                        409,
                        "version_conflict",
                        "the document is at version " + current.version() + ", not " + base
                                + "; merge your text with the current one and save again")
                .body());
        body.put("current", current.document());
        return Reply.json(409, body);
    }

    private static DocumentKey key(String tenant, String user, String name) {
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
        return new DocumentKey(tenant, user, name);
    }

    private Reply read(DocumentKey key, int partition) {
        ReadOnlyKeyValueStore<String, DiaryDocument> store = streams.store(StoreQueryParameters.fromNameAndType(
                        DiaryEditProcessor.STORE, QueryableStoreTypes.<String, DiaryDocument>keyValueStore())
                .withPartition(partition));
        DiaryDocument document = store.get(key.key());
        if (document == null) {
            return Reply.notFound("document_not_found", "no " + key.path() + " for user " + key.user());
        }
        return Reply.json(200, DiaryView.of(document));
    }
}
