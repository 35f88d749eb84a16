package io.reme.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code demo --lang zh --exit} end to end on the embedded default (broker, Streams, offline workers, file
 * sinks): the Chinese conversations are compacted into a Chinese summary, written to diaries and
 * MEMORY.md, their personal statements become memories, and a Chinese question finds its session.
 */
@Tag("integration")
class DemoCommandIT {
    @TempDir
    Path dir;

    @Test
    void aChineseConversationGoesThroughTheWholePipeline() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        int exit;
        try (PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            exit = new CommandLine(new Main())
                    .execute(
                            "demo",
                            "--lang",
                            "zh",
                            "--exit",
                            "--data-dir",
                            dir.resolve("data").toString(),
                            "--http-port",
                            "0");
        } finally {
            System.setOut(out);
        }
        String shown = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, shown);
        int wang = shown.indexOf("session wang-orders-migration");
        int lina = shown.indexOf("session lina-trip");
        assertTrue(wang >= 0 && lina > wang, shown);
        String session = shown.substring(wang, lina);
        assertTrue(session.contains("compactions applied 1"), session);
        // The summary: the planted goal, preference, decision and next step, each in its section.
        assertTrue(section(session, "## Goal").contains("把订单服务从 Kafka 2.8 迁移到 Kafka 4.4，必须在12月15日前完成"), session);
        assertTrue(section(session, "## Constraints & Preferences").contains("我喜欢简短的回答"), session);
        assertTrue(section(session, "## Key Decisions").contains("把 max.poll.records 设为 100"), session);
        assertTrue(section(session, "## Next Steps").contains("部署到预发环境 orders-stg-2"), session);

        String diary = shown.substring(shown.indexOf("memory/2026-11-28.md of wang"));
        assertTrue(diary.contains("- Decision: 先切上海，稳定两天后再切北京"), diary);
        String memory = shown.substring(shown.indexOf("MEMORY.md of wang"));
        assertTrue(memory.contains("- 我喜欢简短的回答，最好直接给出配置"), memory);
        assertTrue(memory.contains("- 我的时区是北京时间"), memory);

        String personal = shown.substring(shown.indexOf("personal memories"));
        for (String statement : new String[] {"我的时区是北京时间。", "我喜欢坐火车，不喜欢坐飞机。", "我不喝咖啡，只喝茶。"}) {
            assertTrue(personal.contains(statement), statement + "\n" + personal);
        }
        String search =
                shown.substring(shown.indexOf("search \"我们决定了哪些 Kafka 消费者设置？\""), shown.indexOf("personal memories"));
        assertTrue(search.lines().skip(1).anyMatch(line -> line.strip().matches("[0-9.]+ +wang .*")), search);
    }

    /** The lines of a summary section, up to the next heading of the same level. */
    private static String section(String text, String heading) {
        int start = text.indexOf(heading);
        assertTrue(start >= 0, heading + " missing in\n" + text);
        int end = text.indexOf("\n    ## ", start + heading.length());
        return text.substring(start, end < 0 ? text.length() : end);
    }
}
