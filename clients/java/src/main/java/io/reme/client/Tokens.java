package io.reme.client;

/**
 * The token totals of a session's served context, counted with the server's encoding.
 *
 * @param encoding the tokenizer's encoding ({@code o200k_base})
 * @param summary tokens of the summary
 * @param messages tokens of the live messages served
 * @param total summary and messages
 * @param threshold tokens the window may reach before a compaction is planned
 * @param keepBudget tokens of the newest messages a compaction keeps live
 * @param maxInputLength the model's input the context must fit
 * @param usageRatio total over maxInputLength
 * @param thresholdRatio total over threshold
 * @param omittedMessages oldest live messages held back while a compaction is late
 * @param omittedTokens their tokens
 */
public record Tokens(
        String encoding,
        long summary,
        long messages,
        long total,
        long threshold,
        long keepBudget,
        long maxInputLength,
        double usageRatio,
        double thresholdRatio,
        long omittedMessages,
        long omittedTokens) {}
