/**
 * The LLM worker pool: consumes {@code llm.requests}, runs each request on an {@link io.reme.provider.LlmClient}
 * with bounded concurrency, per-tenant fairness, a timeout per call and retries with exponential
 * backoff and jitter, and answers on {@code llm.results} (FAILED plus a dead letter after the last
 * attempt). Diary updates go through versioned document edits; memory extraction merges candidates
 * with the nearest existing memories ({@link io.reme.worker.MemoryLookup}) and writes memories to
 * {@code memories.pending} before the result.
 */
package io.reme.worker;
