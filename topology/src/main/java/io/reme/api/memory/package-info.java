/**
 * Memories over HTTP: written, read, listed and deleted ({@link io.reme.api.memory.MemoryQueries},
 * {@link io.reme.api.memory.MemoryWriter}), searched across partitions ({@link
 * io.reme.api.memory.SearchQueries}) and retrieved per type ({@link io.reme.api.memory.MemoryRetrieval});
 * the request records and their checks; and the workers' lookup of existing memories, in process or
 * over HTTP.
 */
package io.reme.api.memory;
