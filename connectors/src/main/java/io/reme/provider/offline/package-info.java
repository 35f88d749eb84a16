/**
 * The offline provider: {@link io.reme.provider.offline.OfflineLlmClient}, the {@code LlmClient} used
 * when no LLM is configured. Deterministic and extractive, no network: it keeps sentences and
 * identifiers verbatim. One class per job: sentence splitting ({@code Sentences}), the rule table
 * that places a sentence in a summary section ({@code SectionRules}) and the identifier patterns
 * ({@code CriticalItems}), extraction from the messages ({@code Extraction}), the summary renderer
 * with its token budget ({@code SummaryRenderer}), the diary composer ({@code DiaryComposer}), and the
 * memory extraction and merge rules ({@code OfflineMemoryRules}). It passes the same contract tests
 * as the OpenAI-compatible provider.
 */
package io.reme.provider.offline;
