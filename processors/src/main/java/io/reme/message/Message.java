package io.reme.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A validated conversation message: who, where, when, and its content blocks. Instances only
 * exist for input that passed {@link MessageParser}, so IDs are safe and blocks are well formed.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Message(
        String tenant,
        String session,
        String user,
        String id,
        Role role,
        String name,
        Instant time,
        List<Block> content) {

    public Message {
        SafeId.require("tenant", tenant);
        SafeId.require("session", session);
        SafeId.require("user", user);
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(time, "time");
        content = List.copyOf(content);
    }

    public Message withContent(List<Block> newContent) {
        return new Message(tenant, session, user, id, role, name, time, newContent);
    }

    /** True for a user message that opens a turn, the only place a context cut may fall. */
    public boolean startsTurn() {
        return role == Role.USER && content.stream().noneMatch(b -> b instanceof Block.ToolResult);
    }

    public Set<String> toolUseIds() {
        Set<String> ids = new LinkedHashSet<>();
        for (Block b : content) {
            if (b instanceof Block.ToolUse use) {
                ids.add(use.id());
            }
        }
        return ids;
    }

    public Set<String> toolResultIds() {
        Set<String> ids = new LinkedHashSet<>();
        for (Block b : content) {
            if (b instanceof Block.ToolResult result) {
                ids.add(result.id());
            }
        }
        return ids;
    }

    public boolean hasToolResults() {
        return content.stream().anyMatch(b -> b instanceof Block.ToolResult);
    }

    /** Returns a copy with block {@code index} replaced. */
    public Message withBlock(int index, Block block) {
        List<Block> copy = new ArrayList<>(content);
        copy.set(index, block);
        return withContent(copy);
    }
}
