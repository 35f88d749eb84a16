package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.RequestBody;
import java.time.Instant;
import java.util.Map;

/**
 * The body of {@code PUT /v1/memories/{id}} (and the {@code update_memory} tool's arguments): the
 * fields to change, and optionally the version the edit is based on. Whether anything is to change at
 * all is checked once the memory is found (an unknown id is a 404 first).
 *
 * @param metadata an object of string values, kept as JSON so a bad entry is named by its key
 */
public record MemoryUpdate(Long version, String content, String target, String conversationTime, JsonNode metadata)
        implements RequestBody {
    @Override
    public void validate() {
        text();
        tags();
        MemoryInput.target(target);
        time();
    }

    String text() {
        return MemoryInput.content(content, false);
    }

    Map<String, String> tags() {
        return MemoryInput.metadata(metadata);
    }

    Instant time() {
        return MemoryInput.instant("conversationTime", conversationTime);
    }
}
