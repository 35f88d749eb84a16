/**
 * Kafka Connect sink connectors that write the working directory: the dialog archive
 * ({@link io.reme.sink.DialogSinkConnector}), diaries and {@code MEMORY.md}
 * ({@link io.reme.sink.DiarySinkConnector}) and full tool outputs
 * ({@link io.reme.sink.ToolResultSinkConnector}). Deployable in any Connect cluster (listed in
 * {@code META-INF/services}); the embedded default runs them in-process. At-least-once delivery,
 * idempotent writes: a redelivered record changes nothing on disk.
 */
package io.reme.sink;
