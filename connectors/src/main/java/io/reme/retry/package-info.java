/**
 * How the workers try a provider call again: one {@link io.reme.retry.RetryPolicy} (attempts, exponential
 * backoff with jitter, which failures are worth another try) shared by the LLM and embedding calls.
 */
package io.reme.retry;
