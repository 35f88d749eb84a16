package io.reme.provider.offline;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.ExtractTask;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.MergeDecision;
import io.reme.provider.MergeTask;
import io.reme.provider.SummaryTask;
import io.reme.tokens.TokenCounter;
import java.util.List;

/**
 * The embedded provider used when no LLM is configured: deterministic, no network, and labelled
 * ({@link #id()} is {@value #ID}; every summary carries {@value #SUMMARY_MARKER} as the first line of
 * its {@code ## Goal} section and every diary section {@value #DIARY_MARKER} under its heading). It
 * does not write prose; it picks sentences and identifiers out of the conversation, so what it keeps
 * is verbatim: {@link Extraction} reads the messages (sentences placed by {@link SectionRules},
 * identifiers found by {@link CriticalItems}), {@link SummaryRenderer} writes the summary within its
 * token budget, {@link DiaryComposer} the diary and {@code MEMORY.md}, and {@link OfflineMemoryRules}
 * extracts and merges memories. Each tool call the task names as unanswered gets its own Critical
 * Context item, {@code Unanswered tool call <id> (<tool>): its result never came.} Small talk gives
 * {@code [SILENT]}: no goal is guessed for a diary.
 *
 * <p>Being deterministic, a retry gives the same answer, so {@link SummaryTask#retryReason()} is not
 * used; nor is the task's language: content is kept in the language it was written in, and the
 * headings are always the English ones {@code SummaryFormat} checks.
 *
 * <p>Thread-safe and stateless; token counting uses the {@link TokenCounter} given to the
 * constructor ({@code o200k_base} by default).
 */
public final class OfflineLlmClient implements LlmClient {
    public static final String ID = "offline-extractive";
    public static final String SUMMARY_MARKER = "_(offline extractive summary, no LLM)_";
    public static final String DIARY_MARKER = "_(offline extractive notes, no LLM)_";

    private final SummaryRenderer summaries;

    /** Counts tokens with {@code o200k_base}. */
    public OfflineLlmClient() {
        this(DefaultTokens.COUNTER);
    }

    /** Counts tokens (for {@link SummaryTask#maxTokens()}) with {@code tokens}, normally the counter the caller validates with. */
    public OfflineLlmClient(TokenCounter tokens) {
        this.summaries = new SummaryRenderer(tokens);
    }

    private static final class DefaultTokens {
        static final TokenCounter COUNTER = TokenCounter.forEncoding("o200k_base", 0);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<MemoryCandidate> extractMemories(ExtractTask task) {
        return OfflineMemoryRules.extract(task);
    }

    @Override
    public MergeDecision mergeMemory(MergeTask task) {
        return OfflineMemoryRules.merge(task);
    }

    @Override
    public String summarize(SummaryTask task) {
        Extraction extraction = new Extraction();
        extraction.mergePrevious(task.previousSummary());
        for (Message message : task.messages()) {
            extraction.add(message);
        }
        extraction.fallBackToFirstRequest();
        for (String id : task.unansweredCalls()) {
            extraction
                    .sections
                    .get(Section.CONTEXT)
                    .add("Unanswered tool call " + id + toolName(task.messages(), id) + ": its result never came.");
        }
        return summaries.fit(extraction.sections, task.maxTokens());
    }

    /** " (name)" of the tool call {@code id} in {@code messages}, or nothing if it is not there. */
    private static String toolName(List<Message> messages, String id) {
        for (Message message : messages) {
            for (Block block : message.content()) {
                if (block instanceof Block.ToolUse use && use.id().equals(id)) {
                    return " (" + use.name() + ")";
                }
            }
        }
        return "";
    }

    @Override
    public String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException {
        if (task.messages().isEmpty()) {
            return "[SILENT]";
        }
        Extraction extraction = new Extraction();
        for (Message message : task.messages()) {
            extraction.add(message);
        }
        try {
            int facts = DiaryComposer.writeDiary(task, editor, extraction);
            int promoted = DiaryComposer.promote(editor, extraction.durable.list);
            if (facts == 0 && promoted == 0) {
                return "[SILENT]";
            }
            return "offline: " + facts + (facts == 1 ? " fact" : " facts") + " added to " + task.dailyDocument() + ", "
                    + promoted + " promoted to " + DocumentEditor.LONG_TERM;
        } catch (IllegalArgumentException e) {
            throw new LlmException("offline diary update failed: " + e.getMessage(), true, e);
        }
    }
}
