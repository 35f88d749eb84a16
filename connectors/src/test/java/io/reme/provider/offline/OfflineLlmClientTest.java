package io.reme.provider.offline;

import static io.reme.provider.LlmClientContract.TOKENS;
import static io.reme.provider.LlmClientContract.conversation;
import static io.reme.provider.LlmClientContract.diaryTask;
import static io.reme.provider.LlmClientContract.message;
import static io.reme.provider.LlmClientContract.summaryTask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.context.ContextPolicy;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.ExtractTask;
import io.reme.provider.LlmException;
import io.reme.provider.MapDocumentEditor;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.SummaryTask;
import io.reme.search.MemoryType;
import io.reme.summary.SummaryFormat;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class OfflineLlmClientTest {
    private final OfflineLlmClient client = new OfflineLlmClient(TOKENS);

    private static String section(String summary, String title) {
        String body = SummaryFormat.section(summary, "## ", title);
        assertNotNull(body, "no section " + title + " in\n" + summary);
        return body;
    }

    private static String progress(String summary, String part) {
        String body = SummaryFormat.section(section(summary, "Progress"), "### ", part);
        assertNotNull(body, "no subsection " + part + " in\n" + summary);
        return body;
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    private static void assertValid(String summary, int budget) {
        assertEquals(List.of(), SummaryFormat.problems(summary, TOKENS, budget), summary);
    }

    // ------------------------------------------------------------------------------- summaries

    @Test
    void isLabelledAsOffline() {
        assertEquals("offline-extractive", client.id());
        assertEquals("offline-extractive", new OfflineLlmClient().id());
        String summary = client.summarize(summaryTask());
        assertTrue(summary.contains("_(offline extractive summary, no LLM)_"), summary);
        assertTrue(
                section(summary, "Goal").contains(OfflineLlmClient.SUMMARY_MARKER),
                "the marker is inside the structure");
    }

    @Test
    void keepsEveryPlantedFact() {
        String summary = client.summarize(summaryTask());
        assertValid(summary, 4000);
        for (String fact : List.of(
                "/srv/orders/application.properties",
                "ORD-4821",
                "max-poll-records=100",
                "orders-stg-2",
                "The coordinator is not aware of this member",
                "Dec 15",
                "never lose or double-process",
                "short answers")) {
            assertTrue(summary.contains(fact), fact + " is missing from\n" + summary);
        }
    }

    @Test
    void placesSentencesInTheirSections() {
        String summary = client.summarize(summaryTask());
        assertTrue(
                section(summary, "Goal").contains("migrate orders-service to Kafka 4.4 before the Dec 15 freeze"),
                summary);
        String constraints = section(summary, "Constraints & Preferences");
        assertTrue(constraints.contains("we must never lose or double-process an order"), summary);
        assertTrue(constraints.contains("I prefer short answers"), summary);
        assertTrue(
                section(summary, "Key Decisions").contains("set max-poll-records=100 and keep manual_immediate acks"),
                summary);
        assertTrue(
                progress(summary, "Done")
                        .contains("updated /srv/orders/application.properties with max-poll-records=100"),
                summary);
        assertEquals("(none)", progress(summary, "Blocked").strip(), summary);
        String next = section(summary, "Next Steps");
        assertTrue(next.contains("1. deploy to staging orders-stg-2"), summary);
        assertTrue(next.contains(". run the 30-minute soak"), summary);
        String context = section(summary, "Critical Context");
        for (String item : List.of(
                "- ORD-4821",
                "- orders-stg-2",
                "- Kafka 4.4",
                "- Dec 15",
                "- 30-minute",
                "- /srv/orders/application.properties",
                "- max-poll-records=100",
                "- manual_immediate",
                "The coordinator is not aware of this member")) {
            assertTrue(context.contains(item), item + " is missing from the critical context\n" + summary);
        }
        assertFalse(context.contains("I prefer"), "only items and error sentences are critical context\n" + summary);
    }

    @Test
    void toolOutputsContributeOnlyTheirCriticalItems() {
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            log.append("INFO poll loop iteration ").append(i).append(" nothing to report\n");
            if (i == 120) {
                log.append("ERROR Connection to node kafka-3:9092 refused (after 3 attempts)\n");
                log.append("bootstrap.servers=kafka-1:9092,kafka-2:9092\n");
            }
        }
        List<Message> messages = List.of(
                message(Role.USER, 0, new Block.Text("Please find out why the consumer stops.")),
                message(
                        Role.ASSISTANT,
                        1,
                        new Block.ToolUse("c1", "tail_log", "{\"file\":\"/var/log/orders/consumer.log\"}")),
                message(Role.TOOL, 2, new Block.ToolResult("c1", "tail_log", log.toString())));
        String summary = client.summarize(new SummaryTask(messages, "", "en", 4000, null));
        assertValid(summary, 4000);
        String context = section(summary, "Critical Context");
        assertTrue(context.contains("ERROR Connection to node kafka-3:9092 refused (after 3 attempts)"), summary);
        assertTrue(context.contains("bootstrap.servers=kafka-1:9092,kafka-2:9092"), summary);
        assertTrue(context.contains("/var/log/orders/consumer.log"), summary);
        assertFalse(summary.contains("poll loop iteration"), "a tool's output is never copied\n" + summary);
        assertTrue(summary.lines().count() < 40, summary);
        assertTrue(section(summary, "Goal").contains("Please find out why the consumer stops"), summary);
    }

    @Test
    void keepsTheFirstAndLastErrorsOfALongLog() {
        StringBuilder log = new StringBuilder();
        for (int i = 1; i <= 30; i++) {
            log.append("ERROR retry ").append(i).append(" of 30 failed\n");
        }
        String summary = client.summarize(new SummaryTask(
                List.of(message(Role.TOOL, 0, new Block.ToolResult("c1", "run", log.toString()))),
                "",
                "en",
                4000,
                null));
        String context = section(summary, "Critical Context");
        for (int i : new int[] {1, 4, 27, 30}) {
            assertTrue(context.contains("- ERROR retry " + i + " of 30 failed\n"), i + "\n" + summary);
        }
        for (int i : new int[] {5, 15, 26}) {
            assertFalse(context.contains("- ERROR retry " + i + " of 30 failed\n"), i + "\n" + summary);
        }
    }

    /** A long Chinese error line has no space to cut at: it is cut after its last sentence that fits. */
    @Test
    void aLongChineseErrorLineIsCutAfterASentence() {
        String kept = "错误：订单服务的消费者在第三次重试后放弃了提交偏移量。原因是会话超时只有十秒而一次轮询处理了五百条记录耗时超过四十秒！"
                + "协调器因此把这个成员踢出了消费者组并触发重平衡？接下来分区七和分区九的记录会被另一个实例重新处理一次。";
        String line = kept + "所以下游必须能够容忍重复的订单事件否则库存会被扣减两次而且财务报表里的金额也会出现偏差需要人工核对每一笔交易"
                + "直到问题修复为止同时告警系统会每五分钟发送一次通知直到运维团队确认收到并且在值班记录里写明处理的步骤和负责人";
        String summary = client.summarize(new SummaryTask(
                List.of(message(Role.TOOL, 0, new Block.ToolResult("c1", "run", line + "\n"))), "", "zh", 4000, null));
        String context = section(summary, "Critical Context");
        assertTrue(context.contains("- " + kept + "…\n"), summary);
    }

    @Test
    void survivesPathologicalToolOutput() {
        String output = "data=" + "1,".repeat(20000) + "\n" + "a" + "Bc".repeat(20000) + "\n" + "/x".repeat(20000)
                + "\n" + "host" + "-a1".repeat(15000) + "\n" + "k" + "_v".repeat(20000) + "\n" + "C:\\"
                + "d\\".repeat(20000);
        List<Message> messages = List.of(
                message(Role.USER, 0, new Block.Text("Please look at this: " + output.substring(0, 5000))),
                message(Role.TOOL, 1, new Block.ToolResult("c1", "dump", output)));
        String summary = client.summarize(new SummaryTask(messages, "", "en", 4000, null));
        assertValid(summary, 4000);
    }

    @Test
    void fallsBackToTheFirstRequestForTheGoal() {
        List<Message> messages = List.of(
                message(Role.USER, 0, new Block.Text("Why does the checkout page time out on Mondays? It is slow.")),
                message(Role.ASSISTANT, 1, new Block.Text("Looking at the logs.")));
        String summary = client.summarize(new SummaryTask(messages, "", "en", 4000, null));
        assertValid(summary, 4000);
        assertTrue(section(summary, "Goal").contains("Why does the checkout page time out on Mondays?"), summary);
        assertFalse(section(summary, "Goal").contains("It is slow"), summary);
    }

    @Test
    void mergesThePreviousSummaryWithoutDuplicates() {
        String first = client.summarize(new SummaryTask(conversation().subList(0, 4), "", "en", 4000, null));
        assertFalse(first.contains("ORD-4821"), "the first span does not mention the ticket");
        String second = client.summarize(new SummaryTask(conversation().subList(4, 6), first, "en", 4000, null));
        assertValid(second, 4000);
        for (String kept : List.of(
                "migrate orders-service to Kafka 4.4",
                "never lose or double-process",
                "short answers",
                "The coordinator is not aware of this member",
                "max.poll.interval.ms=300000")) {
            assertTrue(second.contains(kept), kept + " from the previous summary was lost\n" + second);
        }
        for (String added : List.of("ORD-4821", "set max-poll-records=100", "run the 30-minute soak")) {
            assertTrue(second.contains(added), added + " from the new span is missing\n" + second);
        }
        assertEquals(1, occurrences(second, OfflineLlmClient.SUMMARY_MARKER), second);
        String context = section(second, "Critical Context");
        assertEquals(1, occurrences(context, "- /srv/orders/application.properties\n"), second);
        assertTrue(context.indexOf("Kafka 4.4") < context.indexOf("ORD-4821"), "previous items come first\n" + second);
        Set<String> lines = new HashSet<>();
        for (String line : second.split("\n")) {
            if (line.startsWith("- ")) {
                assertTrue(lines.add(line), "duplicate line " + line + "\n" + second);
            }
        }
        String again = client.summarize(new SummaryTask(conversation().subList(4, 6), second, "en", 4000, null));
        assertEquals(second, again, "merging the same span again adds nothing");
    }

    @Test
    void mergesAnUnstructuredPreviousSummary() {
        String summary = client.summarize(new SummaryTask(
                conversation().subList(4, 6),
                "We decided to pin Kafka 4.4. The staging host is orders-stg-2.",
                "en",
                4000,
                null));
        assertValid(summary, 4000);
        assertTrue(section(summary, "Key Decisions").contains("We decided to pin Kafka 4.4"), summary);
    }

    private static List<Message> longConversation() {
        List<Message> messages = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int n = 1000 + i;
            messages.add(
                    switch (i % 3) {
                        case 0 ->
                            message(
                                    Role.USER,
                                    i,
                                    new Block.Text("Ticket OPS-" + n + ": please update /srv/app/module" + n
                                            + "/config.yaml so that retries=" + i + ". Decision: roll out module" + n
                                            + " in wave " + i
                                            + ". Next: verify host app-" + n + "."));
                        case 1 ->
                            message(
                                    Role.ASSISTANT,
                                    i,
                                    new Block.Text("Done: updated module" + n + " with retries=" + i
                                            + " and restarted app-" + n + " in " + (i % 50 + 1) + " seconds."));
                        default ->
                            message(
                                    Role.TOOL,
                                    i,
                                    new Block.ToolResult(
                                            "c" + i,
                                            "deploy",
                                            "INFO deploying module" + n + "\nERROR module" + n
                                                    + " health check failed with code " + i));
                    });
        }
        return messages;
    }

    @Test
    void respectsTheBudgetOnALongConversation() {
        List<Message> messages = longConversation();
        String unbounded = client.summarize(new SummaryTask(messages, "", "en", 0, null));
        assertTrue(TOKENS.count(unbounded) > 4000, "the test needs a conversation over budget");
        String summary = client.summarize(new SummaryTask(messages, "", "en", 1200, null));
        assertValid(summary, 1200);
        assertTrue(TOKENS.count(summary) > 900, "trimming stops near the budget: " + TOKENS.count(summary));
        assertTrue(summary.contains("OPS-1297"), "the newest items are kept\n" + summary);
        assertFalse(summary.contains("OPS-1000"), "the oldest items are dropped\n" + summary);
        assertTrue(summary.contains(OfflineLlmClient.SUMMARY_MARKER), summary);
        for (String heading : List.of(
                "## Goal",
                "## Constraints & Preferences",
                "## Progress",
                "### Done",
                "### In Progress",
                "### Blocked",
                "## Key Decisions",
                "## Next Steps",
                "## Critical Context")) {
            assertTrue(summary.contains(heading + "\n"), heading);
        }
    }

    @Test
    void namesUnansweredCallsUnderCriticalContext() {
        List<Message> messages = new ArrayList<>(conversation());
        messages.add(message(Role.ASSISTANT, 50, new Block.ToolUse("call_lost", "run_migration", "{}")));
        messages.add(message(Role.USER, 51, new Block.Text("Never mind, let's move on.")));
        String summary = client.summarize(new SummaryTask(messages, "", "en", 4000, null, List.of("call_lost")));

        assertValid(summary, 4000);
        assertTrue(
                section(summary, "Critical Context")
                        .contains("Unanswered tool call call_lost (run_migration): its result never came"),
                summary);
        assertFalse(client.summarize(new SummaryTask(messages, "", "en", 4000, null))
                .contains("Unanswered"));
    }

    @Test
    void theSmallestBudgetAWindowCanHaveHoldsTheStructure() {
        // ContextPolicy refuses windows whose summary budget is under this; the empty structure fits it.
        String summary =
                client.summarize(new SummaryTask(longConversation(), "", "en", ContextPolicy.MIN_SUMMARY_BUDGET, null));
        assertValid(summary, ContextPolicy.MIN_SUMMARY_BUDGET);
    }

    @Test
    void aBudgetBelowTheStructureKeepsTheHeadings() {
        String summary = client.summarize(new SummaryTask(conversation(), "", "en", 10, null));
        assertEquals(List.of(), SummaryFormat.problems(summary, TOKENS, 0), summary);
        assertFalse(summary.contains("ORD-4821"), summary);
    }

    @Test
    void isDeterministic() {
        List<Message> messages = longConversation();
        String a = client.summarize(new SummaryTask(messages, "", "en", 1500, null));
        String b = new OfflineLlmClient(TOKENS).summarize(new SummaryTask(List.copyOf(messages), "", "en", 1500, null));
        assertEquals(a, b);
        assertEquals(client.summarize(summaryTask()), new OfflineLlmClient().summarize(summaryTask()));
    }

    @Test
    void anEmptySpanStillGivesAValidSummary() {
        String summary = client.summarize(new SummaryTask(List.of(), "", "en", 4000, null));
        assertValid(summary, 4000);
        assertEquals("(none)", section(summary, "Critical Context").strip(), summary);
    }

    private static List<Message> cjkConversation() {
        return List.of(
                message(
                        Role.USER,
                        0,
                        new Block.Text("我是王伟。目标：把订单服务迁移到 Kafka 4.4，必须在12月15日前完成。"
                                + "我喜欢简短的回答！决定：把 max-poll-records 设为 100。下一步：部署到 orders-stg-2？")),
                message(
                        Role.ASSISTANT,
                        1,
                        new Block.Text("已完成：更新了 /srv/orders/application.properties。"
                                + "错误「The coordinator is not aware of this member」来自过长的轮询。")));
    }

    @Test
    void handlesCjkText() {
        String summary = client.summarize(new SummaryTask(cjkConversation(), "", "zh", 4000, null));
        assertValid(summary, 4000);
        String goal = section(summary, "Goal");
        assertTrue(goal.contains("把订单服务迁移到 Kafka 4.4，必须在12月15日前完成"), summary);
        assertFalse(goal.contains("我喜欢简短的回答"), "sentences are split on 。！？\n" + summary);
        assertTrue(section(summary, "Constraints & Preferences").contains("我喜欢简短的回答"), summary);
        assertTrue(section(summary, "Key Decisions").contains("把 max-poll-records 设为 100"), summary);
        assertTrue(section(summary, "Next Steps").contains("部署到 orders-stg-2"), summary);
        assertTrue(progress(summary, "Done").contains("更新了 /srv/orders/application.properties"), summary);
        String context = section(summary, "Critical Context");
        for (String item :
                List.of("12月15日", "orders-stg-2", "Kafka 4.4", "The coordinator is not aware of this member")) {
            assertTrue(context.contains(item), item + "\n" + summary);
        }
    }

    // ------------------------------------------------------------------------------- diary

    @Test
    void createsTheDiaryWithAHeadingAndASessionSection() throws LlmException {
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        String outcome = client.updateDiary(task, editor);
        String diary = editor.read(task.dailyDocument());
        assertTrue(
                diary.startsWith("# 2026-11-28\n\n## 14:00–14:05 s1\n" + OfflineLlmClient.DIARY_MARKER + "\n"), diary);
        for (String bullet : List.of(
                "- Goal: migrate orders-service to Kafka 4.4 before the Dec 15 freeze",
                "- Decision: set max-poll-records=100 and keep manual_immediate acks",
                "- Constraint: we must never lose or double-process an order",
                "- Preference: I prefer short answers",
                "- Done: updated /srv/orders/application.properties with max-poll-records=100",
                "- Context: ORD-4821",
                "The coordinator is not aware of this member")) {
            assertTrue(diary.contains(bullet), bullet + " missing from\n" + diary);
        }
        assertFalse(
                diary.contains("- Context: max-poll-records=100"),
                "an item a fact already states is not repeated\n" + diary);
        long bullets = diary.lines().filter(l -> l.startsWith("- ")).count();
        assertTrue(
                Pattern.matches(
                        "offline: " + bullets + " facts added to memory/2026-11-28\\.md, 3 promoted to MEMORY\\.md",
                        outcome),
                outcome);
    }

    @Test
    void runningTheSameTaskTwiceChangesNothing() throws LlmException {
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        client.updateDiary(task, editor);
        String diary = editor.read(task.dailyDocument());
        String memory = editor.read(DocumentEditor.LONG_TERM);
        assertEquals("[SILENT]", client.updateDiary(task, editor));
        assertEquals(diary, editor.read(task.dailyDocument()));
        assertEquals(memory, editor.read(DocumentEditor.LONG_TERM));
    }

    @Test
    void keepsExistingContentAndAddsOnlyWhatIsNew() throws LlmException {
        DiaryTask early = new DiaryTask(
                "acme",
                "alice",
                "s1",
                LocalDate.of(2026, 11, 28),
                conversation().subList(0, 4),
                "en");
        MapDocumentEditor editor = new MapDocumentEditor(early);
        String existing = "# 2026-11-28\n\n## 09:10–09:40 s0\n- Morning: reviewed PR #512\n";
        editor.write(early.dailyDocument(), existing);
        client.updateDiary(early, editor);
        String afterEarly = editor.read(early.dailyDocument());
        assertTrue(afterEarly.startsWith(existing + "\n## 14:00–14:03 s1\n"), afterEarly);

        String outcome = client.updateDiary(diaryTask(), editor);
        String diary = editor.read(early.dailyDocument());
        assertTrue(diary.startsWith(afterEarly + "\n## 14:00–14:05 s1\n"), diary);
        String added = diary.substring(afterEarly.length());
        assertTrue(added.contains("- Context: ORD-4821"), added);
        assertFalse(added.contains("short answers"), "what the diary already says is not repeated\n" + added);
        assertEquals(1, occurrences(diary, "# 2026-11-28\n"), diary);
        assertTrue(outcome.endsWith(", 0 promoted to MEMORY.md"), outcome);
    }

    @Test
    void addsToTheSessionSectionWhenItAlreadyExists() throws LlmException {
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        editor.write(
                task.dailyDocument(),
                "# 2026-11-28\n\n## 14:00–14:05 s1\n- Context: ORD-4821\n\n## 16:00–16:30 s2\n- Other\n");
        client.updateDiary(task, editor);
        String diary = editor.read(task.dailyDocument());
        assertEquals(1, occurrences(diary, "## 14:00–14:05 s1"), diary);
        assertEquals(1, occurrences(diary, "ORD-4821"), diary);
        int decision = diary.indexOf("- Decision: set max-poll-records=100");
        assertTrue(decision > 0 && decision < diary.indexOf("## 16:00–16:30 s2"), diary);
        assertTrue(diary.endsWith("## 16:00–16:30 s2\n- Other\n"), diary);
    }

    @Test
    void promotesDurableUserFactsToLongTermMemoryOnce() throws LlmException {
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        client.updateDiary(task, editor);
        String memory = editor.read(DocumentEditor.LONG_TERM);
        assertTrue(memory.startsWith("# Long-term memory\n\n## Preferences and constraints\n"), memory);
        assertEquals(1, occurrences(memory, "I prefer short answers"), memory);
        assertTrue(memory.contains("- we must never lose or double-process an order\n"), memory);
        assertFalse(memory.contains("max-poll-records"), "decisions stay in the diary\n" + memory);

        DiaryTask later = new DiaryTask(
                "acme",
                "alice",
                "s2",
                LocalDate.of(2026, 11, 28),
                List.of(
                        message(
                                Role.USER,
                                300,
                                new Block.Text("Remember: I prefer short answers. My timezone is CET.")),
                        message(Role.ASSISTANT, 301, new Block.Text("Noted."))),
                "en");
        editor.write(DocumentEditor.LONG_TERM, memory + "\n## Projects\n- orders-service\n");
        String outcome = client.updateDiary(later, editor);
        String updated = editor.read(DocumentEditor.LONG_TERM);
        assertEquals(1, occurrences(updated, "I prefer short answers"), updated);
        int timezone = updated.indexOf("- My timezone is CET\n");
        assertTrue(timezone > 0 && timezone < updated.indexOf("## Projects"), "added under its section\n" + updated);
        assertTrue(updated.endsWith("## Projects\n- orders-service\n"), updated);
        assertTrue(outcome.endsWith(", 1 promoted to MEMORY.md"), outcome);
    }

    @Test
    void anAssistantStatementIsNotPromoted() throws LlmException {
        DiaryTask task = new DiaryTask(
                "acme",
                "alice",
                "s3",
                LocalDate.of(2026, 11, 28),
                List.of(
                        message(Role.USER, 0, new Block.Text("Which retention do we use?")),
                        message(Role.ASSISTANT, 1, new Block.Text("I prefer retention.ms=604800000 for this topic."))),
                "en");
        MapDocumentEditor editor = new MapDocumentEditor(task);
        client.updateDiary(task, editor);
        assertEquals("", editor.read(DocumentEditor.LONG_TERM));
        assertTrue(editor.read(task.dailyDocument()).contains("retention.ms=604800000"));
    }

    @Test
    void aCjkDiaryWorks() throws LlmException {
        DiaryTask task = new DiaryTask("acme", "wang", "s1", LocalDate.of(2026, 11, 28), cjkConversation(), "zh");
        MapDocumentEditor editor = new MapDocumentEditor(task);
        client.updateDiary(task, editor);
        assertTrue(
                editor.read(task.dailyDocument()).contains("- Decision: 把 max-poll-records 设为 100"),
                editor.read(task.dailyDocument()));
        assertTrue(editor.read(DocumentEditor.LONG_TERM).contains("- 我喜欢简短的回答"), editor.read(DocumentEditor.LONG_TERM));
        assertEquals("[SILENT]", client.updateDiary(task, editor));
    }

    @Test
    void personalMemoriesAreFoundInChineseSentences() throws LlmException {
        List<MemoryCandidate> found = client.extractMemories(new ExtractTask(
                "acme",
                "wang",
                "s1",
                MemoryType.PERSONAL,
                List.of(
                        message(Role.USER, 400, new Block.Text("我喜欢绿茶。我的猫叫小白。东京现在几点？")),
                        message(Role.ASSISTANT, 401, new Block.Text("我也喜欢绿茶。")),
                        message(Role.USER, 402, new Block.Text("我不再喜欢咖啡了！"))),
                "zh"));
        assertEquals(
                List.of("我喜欢绿茶。", "我的猫叫小白。", "我不再喜欢咖啡了！"),
                found.stream().map(MemoryCandidate::content).toList(),
                "one memory per statement, split on 。！？ with no space after them; the assistant's are not the user's");
        assertEquals(
                List.of("绿茶", "我的猫", "咖啡"),
                found.stream().map(c -> c.metadata().get(MemoryCandidate.ABOUT)).toList());
    }

    @Test
    void nothingToWriteIsSilent() throws LlmException {
        DiaryTask empty = new DiaryTask("acme", "alice", "s1", LocalDate.of(2026, 11, 28), List.of(), "en");
        MapDocumentEditor editor = new MapDocumentEditor(empty);
        assertEquals("[SILENT]", client.updateDiary(empty, editor));
        assertEquals("", editor.read(empty.dailyDocument()));
        DiaryTask chatter = new DiaryTask(
                "acme",
                "alice",
                "s1",
                LocalDate.of(2026, 11, 28),
                List.of(
                        message(Role.USER, 0, new Block.Text("hi")),
                        message(Role.ASSISTANT, 1, new Block.Text("Hello!"))),
                "en");
        assertEquals("[SILENT]", client.updateDiary(chatter, editor), "small talk is not worth keeping");
        assertEquals("", editor.read(empty.dailyDocument()));
        assertEquals("", editor.read(DocumentEditor.LONG_TERM));
    }
}
