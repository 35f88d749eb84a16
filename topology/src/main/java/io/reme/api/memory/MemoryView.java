package io.reme.api.memory;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.reme.search.MemoryRecord;
import io.reme.search.SourceSpan;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A memory as the HTTP API shows it: the record without its vector, types in lower case, {@code content} for the
 * text, and the spans of dialog it was made from ({@code sources}, left out when there are none).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record MemoryView(
        String id,
        String type,
        String target,
        String user,
        String session,
        String content,
        Map<String, String> metadata,
        Instant createdAt,
        Instant updatedAt,
        Instant conversationTime,
        long version,
        List<Change> history,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SourceSpan> sources) {

    /** An earlier content of the memory, newest first. */
    record Change(String content, long version, Instant replacedAt) {}

    static MemoryView of(MemoryRecord r) {
        return new MemoryView(
                r.id(),
                r.type().name().toLowerCase(Locale.ROOT),
                r.target(),
                r.user(),
                r.session(),
                r.text(),
                r.metadata(),
                r.createdAt(),
                r.updatedAt(),
                r.conversationTime(),
                r.version(),
                r.history().stream()
                        .map(h -> new Change(h.text(), h.version(), h.replacedAt()))
                        .toList(),
                r.sources());
    }
}
