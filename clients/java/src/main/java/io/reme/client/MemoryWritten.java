package io.reme.client;

/**
 * The answer to a memory's creation or edit.
 *
 * @param id the memory's id
 * @param version its version now
 * @param visible whether searches see it already (false: the index had not applied it within the server's
 *     visibility timeout, status 202)
 * @param memory the memory as written
 */
public record MemoryWritten(String id, long version, boolean visible, Memory memory) {}
