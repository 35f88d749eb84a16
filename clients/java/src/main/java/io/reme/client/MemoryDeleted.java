package io.reme.client;

/**
 * The answer to a memory's deletion: it is tombstoned.
 *
 * @param id the memory's id
 * @param deleted true
 * @param visible whether searches already miss it
 */
public record MemoryDeleted(String id, boolean deleted, boolean visible) {}
