/**
 * Decides when an agent's conversation window has grown too large for the model and which oldest
 * part of it can be compacted into a summary without breaking a turn or a tool call apart.
 *
 * <p>{@link io.reme.context.ContextPolicy} holds the token limits, {@link io.reme.context.PlanEntry}
 * is the token-level view of one message, {@link io.reme.context.PlanLimits} says when a call
 * without its result stops pinning the window and how large one compaction may be, and
 * {@link io.reme.context.ContextPlanner} turns a window of entries into a {@link io.reme.context.Cut}. Nothing here counts tokens or touches
 * Kafka; callers supply the counts.
 */
package io.reme.context;
