package io.reme.session;

import io.reme.context.PlanEntry;
import io.reme.message.Message;
import java.util.Objects;

/** One live message in the session store, with its token count (counted once, when it was stored). */
public record StoredMessage(long seq, int tokens, Message message) {
    public StoredMessage {
        Objects.requireNonNull(message, "message");
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must be >= 0");
        }
    }

    /** What the context planner needs to know of this message to choose where a window may be cut. */
    PlanEntry planEntry() {
        return new PlanEntry(seq, message.startsTurn(), tokens, message.toolUseIds(), message.toolResultIds());
    }
}
