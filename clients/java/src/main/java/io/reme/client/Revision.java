package io.reme.client;

import java.time.Instant;

/**
 * An earlier content of a memory.
 *
 * @param content what it said
 * @param version the version it was
 * @param replacedAt when an edit replaced it
 */
public record Revision(String content, long version, Instant replacedAt) {}
