/**
 * How the service tries again: one {@link io.reme.retry.RetryPolicy} (attempts, exponential backoff with
 * jitter, which failures are worth another try) shared by the LLM and embedding calls, and {@link
 * io.reme.retry.Poll}, the one loop that waits for a write to become visible.
 */
package io.reme.retry;
