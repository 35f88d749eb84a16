/**
 * The LLM seam: {@link io.reme.provider.LlmClient} does one task (write a summary, update a diary)
 * and has two implementations that pass the same contract tests: an OpenAI-compatible one and a
 * deterministic offline extractive one.
 */
package io.reme.provider;
