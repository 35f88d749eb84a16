package io.reme.context;

import java.util.Set;

/**
 * The planner's view of one message in a conversation window: where it sits, whether a new
 * turn starts there, what it costs, and which tool calls it opens or answers.
 *
 * @param seq position in the conversation; strictly increasing within a window
 * @param turnStart true for a user message that starts a new turn, i.e. one carrying no tool results
 * @param tokens the message's token count
 * @param toolUseIds ids of the tool calls this message makes
 * @param toolResultIds ids of the tool calls whose results this message carries
 */
public record PlanEntry(long seq, boolean turnStart, long tokens, Set<String> toolUseIds, Set<String> toolResultIds) {

    public PlanEntry {
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must be >= 0, got " + tokens + " at seq " + seq);
        }
        toolUseIds = toolUseIds == null ? Set.of() : Set.copyOf(toolUseIds);
        toolResultIds = toolResultIds == null ? Set.of() : Set.copyOf(toolResultIds);
        // A message that hands back tool results continues the current turn by definition.
        if (turnStart && !toolResultIds.isEmpty()) {
            throw new IllegalArgumentException(
                    "a turn start carries no tool results, but seq " + seq + " carries " + toolResultIds);
        }
    }
}
