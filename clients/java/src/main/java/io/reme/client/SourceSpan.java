package io.reme.client;

import java.time.Instant;

/**
 * A run of one session's messages a diary, diary chunk or extracted memory was written from.
 *
 * @param session the session
 * @param firstMessageId its first message
 * @param lastMessageId its last message
 * @param messages how many messages it holds
 * @param from the time of its first message
 * @param to the time of its last message
 */
public record SourceSpan(
        String session, String firstMessageId, String lastMessageId, long messages, Instant from, Instant to) {}
