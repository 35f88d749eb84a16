package io.reme.provider;

import java.util.Objects;

/**
 * What to do with a candidate: {@code ADD} it as a new memory, {@code UPDATE} the existing memory
 * {@code memoryId} to {@code content} (a contradiction supersedes the old fact, which stays in the
 * memory's history), or {@code NOOP} (already known).
 */
public record MergeDecision(Action action, String memoryId, String content) {
    public enum Action {
        ADD,
        UPDATE,
        NOOP
    }

    public MergeDecision {
        Objects.requireNonNull(action, "action");
        if (action == Action.UPDATE && (memoryId == null || memoryId.isBlank())) {
            throw new IllegalArgumentException("an UPDATE names the memory it rewrites");
        }
        if (action != Action.NOOP && (content == null || content.isBlank())) {
            throw new IllegalArgumentException("an " + action + " needs content");
        }
    }

    public static MergeDecision add(String content) {
        return new MergeDecision(Action.ADD, null, content);
    }

    public static MergeDecision update(String memoryId, String content) {
        return new MergeDecision(Action.UPDATE, memoryId, content);
    }

    public static MergeDecision noop() {
        return new MergeDecision(Action.NOOP, null, null);
    }
}
