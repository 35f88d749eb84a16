package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.Arg;
import io.reme.api.RequestBody;
import io.reme.search.MemoryType;
import java.time.Instant;
import java.util.Map;

/**
 * The body of {@code POST /v1/memories} (and the {@code add_memory} tool's arguments). The accessors
 * below give each field checked and typed; {@link #validate} runs them all once, in the order the
 * API has always checked them, so the first problem is the one answered.
 *
 * @param metadata an object of string values, kept as JSON so a bad entry is named by its key
 */
public record MemoryCreate(
        @Arg(
                value = "personal (about a user), procedural (how to do something) or tool (experience with a"
                        + " tool)",
                required = true,
                allowed = {"personal", "procedural", "tool"})
        String type,

        @Arg(value = "the memory, one self-contained statement", required = true)
        String content,

        String context,
        @Arg("the user, task or tool the memory is about") String target,

        @Arg("the user it is about (a personal memory's target defaults to it)")
        String user,

        @Arg("the session it came from") String session,
        String conversationTime,

        @Arg(value = "string properties to filter on later", type = "object", stringValues = true)
        JsonNode metadata)
        implements RequestBody {
    public static final String INVALID = "invalid_memory";

    @Override
    public void validate() {
        memoryType();
        text();
        MemoryInput.safeId("user", user);
        MemoryInput.safeId("session", session);
        memoryTarget();
        time();
        tags();
        around();
    }

    MemoryType memoryType() {
        return MemoryInput.writableType(type);
    }

    String text() {
        return MemoryInput.content(content, true);
    }

    /** The target, a personal memory's defaulting to its user. */
    String memoryTarget() {
        String checked = MemoryInput.target(target);
        if (checked != null) {
            return checked;
        }
        if (memoryType() != MemoryType.PERSONAL || user == null) {
            throw MemoryInput.invalid("'target' is required: the user name (personal), task name (procedural) "
                    + "or tool name (tool) the memory is about; a personal memory defaults to its 'user'");
        }
        return user;
    }

    Instant time() {
        return MemoryInput.instant("conversationTime", conversationTime);
    }

    Map<String, String> tags() {
        return MemoryInput.metadata(metadata);
    }

    String around() {
        return MemoryInput.context(context);
    }
}
