/**
 * The LLM seam: {@link io.reme.provider.LlmClient} does one task (write a summary, update a diary,
 * extract memory candidates, decide how one merges with existing memories)
 * and has two implementations that pass the same contract tests: an OpenAI-compatible one and a
 * deterministic offline extractive one ({@code io.reme.provider.offline}).
 */
package io.reme.provider;
