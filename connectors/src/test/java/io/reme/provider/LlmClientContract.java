package io.reme.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LlmClient} must do, run against each implementation by a subclass (the
 * offline provider; the OpenAI provider against a local compatible server).
 */
public abstract class LlmClientContract {
    public static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    public static final Instant T0 = Instant.parse("2026-11-28T14:00:00Z");

    /** A fresh client for one test. */
    protected abstract LlmClient client();

    /** A short agent conversation with facts a summary must not lose. */
    public static List<Message> conversation() {
        List<Message> messages = new ArrayList<>();
        messages.add(message(
                Role.USER,
                0,
                new Block.Text("I'm Alice. Goal: migrate orders-service to Kafka 4.4 "
                        + "before the Dec 15 freeze. Constraint: we must never lose or double-process an order. "
                        + "I prefer short answers.")));
        messages.add(message(
                Role.ASSISTANT,
                1,
                new Block.ToolUse("call_1", "read_file", "{\"path\":\"/srv/orders/application.properties\"}")));
        messages.add(message(
                Role.TOOL,
                2,
                new Block.ToolResult("call_1", "read_file", "max-poll-records=500\nmax.poll.interval.ms=300000")));
        messages.add(message(
                Role.ASSISTANT,
                3,
                new Block.Text("The error 'The coordinator is not aware of this "
                        + "member' comes from polls longer than max.poll.interval.ms=300000.")));
        messages.add(message(
                Role.USER,
                4,
                new Block.Text("Decision: set max-poll-records=100 and keep "
                        + "manual_immediate acks. Ticket ORD-4821. Next: deploy to staging orders-stg-2.")));
        messages.add(
                message(
                        Role.ASSISTANT,
                        5,
                        new Block.Text(
                                "Done: updated /srv/orders/application.properties "
                                        + "with max-poll-records=100. Next steps: 1) deploy to orders-stg-2, 2) run the 30-minute soak.")));
        return messages;
    }

    public static Message message(Role role, int minute, Block block) {
        return new Message(
                "acme", "s1", "alice", "m" + minute, role, null, T0.plusSeconds(60L * minute), List.of(block));
    }

    public static SummaryTask summaryTask() {
        return new SummaryTask(conversation(), "", "en", 4000, null);
    }

    public static DiaryTask diaryTask() {
        return new DiaryTask("acme", "alice", "s1", LocalDate.of(2026, 11, 28), conversation(), "en");
    }

    @Test
    void hasAnId() {
        try (LlmClient client = client()) {
            assertFalse(client.id().isBlank());
        }
    }

    @Test
    void writesAValidStructuredSummary() throws LlmException {
        try (LlmClient client = client()) {
            String summary = client.summarize(summaryTask());
            assertEquals(List.of(), SummaryFormat.problems(summary, TOKENS, 4000), summary);
        }
    }

    @Test
    void extendsAPreviousSummary() throws LlmException {
        try (LlmClient client = client()) {
            String first = client.summarize(summaryTask());
            String second = client.summarize(new SummaryTask(conversation().subList(4, 6), first, "en", 4000, null));
            assertEquals(List.of(), SummaryFormat.problems(second, TOKENS, 4000), second);
        }
    }

    @Test
    void updatesTheDailyDiaryThroughTheEditor() throws LlmException {
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        try (LlmClient client = client()) {
            String outcome = client.updateDiary(task, editor);
            assertFalse(outcome.isBlank());
        }
        String diary = editor.read(task.dailyDocument());
        assertFalse(diary.isBlank(), "the day's document was written");
    }

    @Test
    void keepsWhatTheDiaryAlreadySays() throws LlmException {
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        editor.write(task.dailyDocument(), "# 2026-11-28\n\n- Morning: reviewed PR #512 (kept by the test)\n");
        try (LlmClient client = client()) {
            client.updateDiary(task, editor);
        }
        assertTrue(
                editor.read(task.dailyDocument()).contains("reviewed PR #512 (kept by the test)"),
                editor.read(task.dailyDocument()));
    }

    @Test
    void theEditorRefusesOtherDocuments() {
        MapDocumentEditor editor = new MapDocumentEditor(diaryTask());
        assertThrows(IllegalArgumentException.class, () -> editor.read("../bob/MEMORY.md"));
    }
}
