package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory browser end to end in headless Chromium against one instance on the in-JVM broker, a
 * small window, the embedded offline LLM workers and file sinks: sign in, watch a session compact,
 * open it and load a truncated tool output's full text, edit MEMORY.md (and survive a conflicting
 * edit), add, edit and delete a memory, find it by search, read the pipeline page, and see that the
 * other tenant's key shows none of it. Text that looks like HTML or a script link stays text. Chinese
 * (the demo's conversations) shows as the characters sent, and a Chinese query finds it.
 * Screenshots go to {@code target/ui-screenshots} (or {@code -Dreme.ui.screenshots=<dir>}).
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MemoryBrowserIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryBrowserIT.class);
    private static final String SESSION = "trip-planning";
    private static final String USER = "bob";
    /** Shows up as text everywhere it is shown; any of it run as a page would set window.__xss. */
    private static final String HOSTILE = "<img src=x onerror=\"window.__xss=1\"> <script>window.__xss=2</script>"
            + " [click me](javascript:window.__xss=3)";

    private static final String LAST_LOG_LINE = "LAST-LINE-OF-THE-DEPLOY-LOG";

    private static RemeApp app;
    private static ChromeDriver chrome;
    private static Path screenshots;

    @BeforeAll
    static void start() throws IOException {
        // First, so a machine without the browser fails at once with what to install.
        chrome = HeadlessChromium.start(dir.resolve("chromium"), 1280, 900);
        Map<String, String> extra = new HashMap<>(TestApps.SMALL_CONTEXT);
        // Tool outputs over 2 KB are cut at once, so a truncated one stays in the small live window.
        extra.put(AppConfig.TOOL_RECENT_BYTES.name(), "2000");
        extra.put(AppConfig.TOOL_OLD_BYTES.name(), "1000");
        extra.put(AppConfig.WORKERS_EMBEDDED.name(), "true");
        extra.put(AppConfig.SINKS_EMBEDDED.name(), "true");
        extra.put(AppConfig.STREAM_THREADS.name(), "1");
        app = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("app"), extra));
        screenshots = Path.of(System.getProperty("reme.ui.screenshots", "target/ui-screenshots"));
        Files.createDirectories(screenshots);
    }

    @AfterAll
    static void stop() {
        if (chrome != null) {
            chrome.quit();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    @Order(1)
    void aTenantSeesAndCorrectsItsMemoryAndAnotherTenantSeesNoneOfIt() throws Exception {
        chrome.get(app.httpUrl() + "/ui/");
        WebElement key = await(By.id("api-key"));
        key.sendKeys(TestApps.ACME_KEY);
        chrome.findElement(By.cssSelector("#signin button[type=submit]")).click();

        // A session below its threshold: listed, no summary yet.
        ingest(turns(0, 4, true));
        awaitRow();
        refreshUntil(() -> !text(summaryCell()).isEmpty());
        assertEquals("none", text(summaryCell()));

        // More turns cross the threshold; the offline worker compacts and the list shows summary v1.
        ingest(turns(4, 10, false));
        refreshUntil(() -> text(summaryCell()).startsWith("v"));
        shot("ui-sessions");

        ingest(toolTurn());
        awaitSettled();

        // The session: summary rendered with its version, the truncated output, its full text on demand.
        chrome.findElement(By.cssSelector("tr[data-session='" + SESSION + "'] a.session-link"))
                .click();
        assertTrue(await(By.id("summary-version")).getText().startsWith("version "));
        awaitText(By.id("messages"), "deploy log");
        WebElement full = await(By.cssSelector("a.full-output"));
        assertFalse(chrome.findElement(By.id("messages")).getText().contains(LAST_LOG_LINE));
        full.click();
        awaitText(By.cssSelector("pre.output.full"), LAST_LOG_LINE);
        assertTrue(chrome.findElement(By.id("messages")).getText().contains("<img src=x"), "markup shown as text");
        assertNoScriptRan();
        shot("ui-tool-output");
        chrome.executeScript("window.scrollTo(0, 0);");
        shot("ui-session");

        // MEMORY.md: write a version, then lose a race to another edit without losing the text.
        chrome.findElement(By.id("session-user")).click();
        WebElement memoryMd = await(By.id("memory-md"));
        memoryMd.findElement(By.cssSelector("button.edit")).click();
        WebElement editor = await(By.cssSelector("#memory-md textarea.editor"));
        editor.clear();
        editor.sendKeys("# Bob\n\n- likes **sourdough** bread\n- " + HOSTILE + "\n");
        chrome.findElement(By.cssSelector("#memory-md button.save")).click();
        String saved = awaitText(By.cssSelector("#memory-md .saved"), "Saved as version ");
        long version = Long.parseLong(saved.replaceAll("\\D", ""));
        assertEquals("version " + version, text(By.cssSelector("#memory-md .doc-version")));
        assertEquals(
                "sourdough",
                chrome.findElement(By.cssSelector("#memory-md .md strong")).getText());
        assertTrue(chrome.findElements(By.cssSelector("#memory-md img")).isEmpty(), "no image element from markup");
        assertTrue(
                chrome.findElements(By.cssSelector("#memory-md a[href^='javascript']"))
                        .isEmpty(),
                "no script link");
        // Shown as the characters typed (the underscores may read as Markdown emphasis: that is text too).
        assertTrue(text(By.id("memory-md")).contains("<img src=x onerror="), text(By.id("memory-md")));
        assertTrue(text(By.id("memory-md")).contains("<script>"), text(By.id("memory-md")));
        assertNoScriptRan();

        ApiClient.Response other = ApiClient.send(
                app,
                "PUT",
                "/v1/diary/" + USER + "/MEMORY",
                TestApps.ACME_KEY,
                Map.of("content", "# Bob\n\n- changed elsewhere\n", "expectedVersion", version));
        assertEquals(200, other.status(), other.text());
        chrome.findElement(By.cssSelector("#memory-md button.edit")).click();
        editor = await(By.cssSelector("#memory-md textarea.editor"));
        editor.clear();
        editor.sendKeys("# Bob\n\n- likes rye now\n");
        chrome.findElement(By.cssSelector("#memory-md button.save")).click();
        awaitText(By.cssSelector("#memory-md .conflict"), "Someone else saved version " + (version + 1));
        assertTrue(text(By.cssSelector("#memory-md pre.current-text")).contains("changed elsewhere"));
        assertEquals(
                "# Bob\n\n- likes rye now\n",
                chrome.findElement(By.cssSelector("#memory-md textarea.editor")).getDomProperty("value"),
                "the text typed is kept");
        shot("ui-conflict");
        chrome.findElement(By.cssSelector("#memory-md button.save")).click();
        awaitText(By.cssSelector("#memory-md .saved"), "Saved as version " + (version + 2));
        assertTrue(text(By.id("memory-md")).contains("likes rye now"));

        // The same rules over plain HTTP: a stale base is refused at once with the current text, a bad
        // body names its field, and the other tenant has no such document.
        ApiClient.Response stale = ApiClient.send(
                app,
                "PUT",
                "/v1/diary/" + USER + "/MEMORY",
                TestApps.ACME_KEY,
                Map.of("content", "lost?", "expectedVersion", version));
        assertEquals(409, stale.status(), stale.text());
        assertEquals("version_conflict", stale.errorCode());
        assertEquals(version + 2, stale.json().path("current").path("version").asLong());
        assertTrue(stale.json().path("current").path("content").asText().contains("likes rye now"));
        ApiClient.Response bad =
                ApiClient.send(app, "PUT", "/v1/diary/" + USER + "/MEMORY", TestApps.ACME_KEY, Map.of("content", "x"));
        assertEquals(400, bad.status(), bad.text());
        assertTrue(bad.json().path("error").path("message").asText().contains("expectedVersion"));
        assertEquals(
                404,
                ApiClient.send(app, "GET", "/v1/diary/" + USER + "/MEMORY", TestApps.GLOBEX_KEY, null)
                        .status());

        // A memory: add, edit (history keeps the old text), find it by search, delete it.
        WebElement memories = await(By.id("user-memories"));
        memories.findElement(By.cssSelector("input[name=content]")).sendKeys("Bob keeps a pet quokka named Pip");
        memories.findElement(By.cssSelector("form.add-memory button[type=submit]"))
                .click();
        WebElement row = awaitRowWith("quokka");
        row.findElement(By.cssSelector("button.edit")).click();
        WebElement memoryEditor = await(By.cssSelector("#user-memories textarea.memory-editor"));
        memoryEditor.clear();
        memoryEditor.sendKeys("Bob keeps a pet wombat named Pip " + HOSTILE);
        chrome.findElement(By.cssSelector("#user-memories button.save")).click();
        row = awaitRowWith("wombat");
        assertTrue(row.getText().contains("v2"), row.getText());
        row.findElement(By.cssSelector("button.history")).click();
        awaitText(By.cssSelector("#user-memories ol.history"), "quokka");
        assertNoScriptRan();
        shot("ui-user");

        chrome.get(app.httpUrl() + "/ui/#/search?q=wombat");
        WebElement hit = awaitRowWith(By.cssSelector("#hits tr.hit"), "wombat");
        assertTrue(hit.findElement(By.cssSelector(".fused")).getText().matches("\\d\\.\\d{3}"), hit.getText());
        assertTrue(hit.findElement(By.cssSelector(".text-score")).getText().matches("\\d+\\.\\d{3}"), hit.getText());
        assertNoScriptRan();
        shot("ui-search");

        // A diary chunk names the dialog it was written from, and links to its session.
        chrome.get(app.httpUrl() + "/ui/#/search?q=plan%20the%20trip&type=diary_chunk");
        By source = By.cssSelector("#hits tr.hit .sources a[href='#/session/" + SESSION + "']");
        refreshUntil(() -> !chrome.findElements(source).isEmpty());
        assertTrue(
                text(By.cssSelector("#hits tr.hit .sources")).matches("from " + SESSION + " \\S+…\\S+ \\(\\d+\\).*"),
                text(By.cssSelector("#hits tr.hit .sources")));

        chrome.get(app.httpUrl() + "/ui/#/user/" + USER);
        row = awaitRowWith("wombat");
        row.findElement(By.cssSelector("button.delete")).click();
        new WebDriverWait(chrome, Duration.ofSeconds(10))
                .until(ExpectedConditions.alertIsPresent())
                .accept();
        new WebDriverWait(chrome, Duration.ofSeconds(30))
                .until(d -> !text(By.id("user-memories")).contains("wombat"));
        chrome.get(app.httpUrl() + "/ui/#/search?q=wombat");
        await(By.id("no-hits"));

        chrome.get(app.httpUrl() + "/ui/#/pipeline");
        awaitText(By.id("health"), "ready");
        assertTrue(text(By.id("llm-requests")).contains("COMPACT"));
        assertTrue(text(By.id("lag")).contains("messages"), "input lag of the messages topic: " + text(By.id("lag")));
        // No embedding model here, so no re-embedder on this instance: the panel says so.
        assertTrue(text(By.id("reembedding")).contains("not here"), text(By.id("reembedding")));
        assertTrue(text(By.id("reembed-progress")).endsWith("%"), text(By.id("reembed-progress")));
        shot("ui-pipeline");

        // Narrow window: the session page fits without sideways scrolling.
        chrome.manage().window().setSize(new Dimension(400, 850));
        chrome.get(app.httpUrl() + "/ui/#/session/" + SESSION);
        await(By.id("summary-version"));
        Number overflow = (Number) chrome.executeScript(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        assertTrue(overflow.intValue() <= 1, "no horizontal scroll at 400 px: " + overflow);
        shot("ui-narrow");
        chrome.manage().window().setSize(new Dimension(1280, 900));

        // The other tenant's key: none of it.
        chrome.get(app.httpUrl() + "/ui/#/sessions");
        await(By.id("signout")).click();
        await(By.id("api-key")).sendKeys(TestApps.GLOBEX_KEY);
        chrome.findElement(By.cssSelector("#signin button[type=submit]")).click();
        await(By.id("no-sessions"));
        chrome.get(app.httpUrl() + "/ui/#/session/" + SESSION);
        awaitText(By.id("page-error"), "no session");
        chrome.get(app.httpUrl() + "/ui/#/user/" + USER);
        awaitText(By.id("memory-md"), "No document yet");
        await(By.cssSelector("#user-memories .no-memories"));
        for (String query : List.of("sourdough", "rye", "deploy")) {
            chrome.get(app.httpUrl() + "/ui/#/search?q=" + query);
            await(By.id("no-hits"));
        }
        assertNoScriptRan();
        List<String> refused = HeadlessChromium.problems(chrome).stream()
                .filter(line -> line.contains("Content Security Policy") || line.contains("Refused"))
                .toList();
        assertTrue(refused.isEmpty(), "the page needs nothing its policy refuses: " + refused);
    }

    /**
     * Chinese from the demo's conversations, compacted, written to diaries and extracted by the offline
     * workers, shows as the characters that went in (page, JSON answers and the stored tool output
     * decoded as UTF-8), and a Chinese query typed into the search form finds it. Runs after the
     * first test, whose "settled" check counts every diary and extraction of the tenant.
     */
    @Test
    @Order(2)
    void chineseShowsAsWrittenAndIsFoundBySearch() throws Exception {
        signIn(TestApps.ACME_KEY);
        assertEquals("UTF-8", chrome.executeScript("return document.characterSet;"));
        List<Map<String, Object>> messages;
        try (InputStream in = MemoryBrowserIT.class.getResourceAsStream("/demo/conversation-zh.json")) {
            messages = new ArrayList<>(Json.MAPPER.readValue(in, new TypeReference<List<Map<String, Object>>>() {}));
        }
        // Follow-up questions take the conversation over its threshold, as the demo's smaller window does.
        messages.addAll(chineseFollowUps());
        messages.addAll(chineseToolTurn());
        ingest(messages);

        // The summary of the compacted part, and the live messages, in the characters sent.
        chrome.get(app.httpUrl() + "/ui/#/sessions");
        refreshUntil(() -> text(summaryCell(ZH_SESSION)).startsWith("v"));
        chrome.get(app.httpUrl() + "/ui/#/session/" + ZH_SESSION);
        awaitText(By.id("summary"), "把订单服务从 Kafka 2.8 迁移到 Kafka 4.4，必须在12月15日前完成");
        awaitText(By.id("messages"), followUpAnswer(ZH_FOLLOW_UPS));
        shot("ui-zh-session");

        // A Chinese tool output cut at a byte budget, then loaded whole from the stored file.
        chrome.get(app.httpUrl() + "/ui/#/session/" + ZH_TOOL_SESSION);
        awaitText(By.id("messages"), "第1行");
        await(By.cssSelector("a.full-output")).click();
        awaitText(By.cssSelector("pre.output.full"), ZH_LAST_LINE);
        assertEquals(
                chineseLog(),
                chrome.executeScript("return document.querySelector('pre.output.full').textContent;"),
                "the full output, character for character");

        // MEMORY.md, the diary and the extracted memories of the user: shown as the API holds them.
        String memoryMd = awaitDocument("MEMORY", "我喜欢简短的回答");
        String diary = awaitDocument(ZH_DAY, "max.poll.records");
        chrome.get(app.httpUrl() + "/ui/#/user/" + ZH_USER + "?date=" + ZH_DAY);
        refreshUntil(() -> text(By.id("memory-md")).contains(bullet(memoryMd, "我喜欢简短的回答"))
                && text(By.id("diary")).contains(bullet(diary, "max.poll.records")));
        WebElement memories = await(By.id("user-memories"));
        memories.findElement(By.cssSelector("input[name=content]")).sendKeys(ZH_TYPED);
        memories.findElement(By.cssSelector("form.add-memory button[type=submit]"))
                .click();
        assertEquals(
                ZH_TYPED,
                awaitRowWith(ZH_TYPED)
                        .findElement(By.cssSelector(".memory-text"))
                        .getText());
        shot("ui-zh-user");
        chrome.get(app.httpUrl() + "/ui/#/memories?type=personal&user=" + ZH_USER);
        awaitRowWith(By.cssSelector("#all-memories tr[data-id]"), "我的时区是北京时间");

        // Chinese typed into the search form: the memory typed, the extracted one and the diary.
        search("柴犬", "", ZH_TYPED);
        search("北京时间", "personal", "我的时区是北京时间");
        search("设为 100", "diary_chunk", bullet(diary, "max.poll.records"));
        shot("ui-zh-search");
        assertNoScriptRan();
        await(By.id("signout")).click();
    }

    private static final String ZH_SESSION = "wang-orders-migration";
    private static final String ZH_USER = "wang";
    private static final String ZH_TOOL_SESSION = "wang-log";
    private static final String ZH_LAST_LINE = "日志结束：共二百行，最后一行。";
    private static final String ZH_TYPED = "王伟养了一只叫豆豆的柴犬";
    private static final String ZH_DAY = "2026-11-28";
    private static final int ZH_FOLLOW_UPS = 12;
    private static final String[] ZH_TOPICS = {
        "消费延迟", "偏移量提交", "重平衡", "分区分配", "回滚方案", "预发环境", "监控面板", "告警阈值", "幂等生产者", "批量大小", "数据中心", "值班安排"
    };

    /** Types {@code query} into the search form (with {@code type}, or any) and waits for a hit holding {@code expected}. */
    private static void search(String query, String type, String expected) {
        chrome.get(app.httpUrl() + "/ui/#/search");
        WebElement form = await(By.id("search-form"));
        form.findElement(By.cssSelector("input[name=q]")).sendKeys(query);
        if (!type.isEmpty()) {
            new Select(form.findElement(By.cssSelector("select[name=type]"))).selectByValue(type);
        }
        form.findElement(By.cssSelector("button[type=submit]")).click();
        assertTrue(awaitRowWith(By.cssSelector("#hits tr.hit"), expected).isDisplayed());
    }

    private static String followUpAnswer(int turn) {
        String topic = ZH_TOPICS[(turn - 1) % ZH_TOPICS.length];
        return "关于" + topic + "：上线前先在预发环境 orders-stg-2 验证，观察一个小时的" + topic + "指标；上线时按数据中心分批切换，"
                + "每一批之后检查消费延迟、偏移量提交和重平衡次数；如果指标异常，就按回滚方案停掉新版本、恢复偏移量、启动旧版本。第" + turn
                + "条建议到此为止。";
    }

    /** Questions and answers after the demo's, on its day, about as long again as its conversation. */
    private static List<Map<String, Object>> chineseFollowUps() {
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int turn = 1; turn <= ZH_FOLLOW_UPS; turn++) {
            String topic = ZH_TOPICS[(turn - 1) % ZH_TOPICS.length];
            Map<String, Object> ask = message(
                    ZH_SESSION, ZH_USER, "user", "第" + turn + "个问题：关于" + topic + "，上线当天应该注意什么？请结合订单服务的情况说明，并给出检查步骤。");
            ask.put("time", String.format("%sT10:%02d:00Z", ZH_DAY, 2 * turn));
            Map<String, Object> answer = message(ZH_SESSION, ZH_USER, "assistant", followUpAnswer(turn));
            answer.put("time", String.format("%sT10:%02d:30Z", ZH_DAY, 2 * turn));
            turns.add(ask);
            turns.add(answer);
        }
        return turns;
    }

    private static String chineseLog() {
        StringBuilder log = new StringBuilder();
        for (int line = 1; line <= 200; line++) {
            log.append("第").append(line).append("行：部署步骤完成，订单服务的消费者组没有重平衡。\n");
        }
        return log.append(ZH_LAST_LINE).append('\n').toString();
    }

    private static List<Map<String, Object>> chineseToolTurn() {
        Map<String, Object> call = message(ZH_TOOL_SESSION, ZH_USER, "assistant", null);
        call.put(
                "tool_calls",
                List.of(Map.of(
                        "id",
                        "call_zh_deploy",
                        "type",
                        "function",
                        "function",
                        Map.of("name", "read_file", "arguments", "{\"path\":\"部署日志.txt\"}"))));
        Map<String, Object> result = message(ZH_TOOL_SESSION, ZH_USER, "tool", chineseLog());
        result.put("tool_call_id", "call_zh_deploy");
        result.put("name", "read_file");
        return List.of(
                message(ZH_TOOL_SESSION, ZH_USER, "user", "请看一下部署日志。"),
                call,
                result,
                message(ZH_TOOL_SESSION, ZH_USER, "assistant", "部署日志里每一步都完成了。"));
    }

    /** The content of a document of the Chinese user once it holds {@code part}, as the JSON API answers it. */
    private static String awaitDocument(String name, String part) {
        return Awaitility.await(name + " of " + ZH_USER + " holds " + part)
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () -> ApiClient.send(app, "GET", "/v1/diary/" + ZH_USER + "/" + name, TestApps.ACME_KEY, null)
                                .json()
                                .path("content")
                                .asText(),
                        content -> content.contains(part));
    }

    /** The text of the Markdown bullet of {@code document} that holds {@code part}, as a page shows it. */
    private static String bullet(String document, String part) {
        return document.lines()
                .filter(line -> line.contains(part))
                .findFirst()
                .orElseThrow()
                .replaceFirst("^\\s*[-*]\\s+", "")
                .strip();
    }

    // ---- the conversation ---------------------------------------------------------------------

    private static final String[] WORDS = ("train ticket kyoto osaka budget hotel ryokan breakfast museum temple garden"
                    + " bicycle rental evening market noodles ramen sushi station platform luggage schedule morning"
                    + " afternoon castle river walk bridge shrine festival lantern tea ceremony souvenir")
            .split(" ");

    private static String sentence(int seed, int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[(seed * 7 + i * 3 + i / 5) % WORDS.length]);
            if (i % 12 == 11) {
                text.append('.');
            }
        }
        return text.append('.').toString();
    }

    private static List<Map<String, Object>> turns(int from, int to, boolean hostile) {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int turn = from; turn < to; turn++) {
            String ask = "Turn " + turn + ": help me plan the trip. " + sentence(turn, 110)
                    + (hostile && turn == from ? " " + HOSTILE : "");
            messages.add(message("user", ask));
            messages.add(message("assistant", "Here is a plan for turn " + turn + ". " + sentence(turn + 50, 110)));
        }
        return messages;
    }

    private static List<Map<String, Object>> toolTurn() {
        StringBuilder log = new StringBuilder();
        for (int line = 1; line <= 160; line++) {
            log.append("2026-11-30 10:")
                    .append(String.format("%02d", line % 60))
                    .append(" INFO deploy step ")
                    .append(line)
                    .append(" finished without errors\n");
        }
        log.append(LAST_LOG_LINE).append('\n');
        Map<String, Object> call = message("assistant", null);
        call.put(
                "tool_calls",
                List.of(Map.of(
                        "id",
                        "call_log",
                        "type",
                        "function",
                        "function",
                        Map.of("name", "read_file", "arguments", "{\"path\":\"deploy.log\"}"))));
        Map<String, Object> result = message("tool", log.toString());
        result.put("tool_call_id", "call_log");
        result.put("name", "read_file");
        return List.of(
                message("user", "Can you check the deploy log for the booking service? " + HOSTILE),
                call,
                result,
                message("assistant", "The deploy log shows every step finished."));
    }

    private static Map<String, Object> message(String role, String content) {
        return message(SESSION, USER, role, content);
    }

    private static Map<String, Object> message(String session, String user, String role, String content) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("session", session);
        message.put("user", user);
        message.put("role", role);
        message.put("content", content);
        return message;
    }

    private static void ingest(List<Map<String, Object>> messages) {
        ApiClient.Response response = ApiClient.send(app, "POST", "/v1/messages", TestApps.ACME_KEY, messages);
        assertEquals(202, response.status(), response.text());
    }

    /** Waits until the session has no compaction in flight and the diary and extraction it asked for are answered. */
    private static void awaitSettled() {
        Awaitility.await("the session settled")
                .atMost(Duration.ofSeconds(90))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(250))
                .until(MemoryBrowserIT::settled);
    }

    private static boolean settled() {
        JsonNode context = ApiClient.send(app, "GET", "/v1/sessions/" + SESSION + "/context", TestApps.ACME_KEY, null)
                .json();
        JsonNode requests = ApiClient.send(app, "GET", "/v1/pipeline", TestApps.ACME_KEY, null)
                .json()
                .path("metrics")
                .path("llmRequests");
        boolean toolTurnIn = context.path("messages").toString().contains("booking service");
        if (toolTurnIn
                && context.path("compaction").path("pending").isNull()
                && requests.path("DIARY").path("OK").asLong() >= 1
                && requests.path("EXTRACT").path("OK").asLong() >= 1) {
            LOG.info("settled: {}", requests);
            return true;
        }
        return false;
    }

    // ---- the browser ----------------------------------------------------------------------------

    private static By summaryCell() {
        return summaryCell(SESSION);
    }

    private static By summaryCell(String session) {
        return By.cssSelector("tr[data-session='" + session + "'] td.summary");
    }

    /** Signs this tab in with {@code key}, signing out whoever was signed in before. */
    private static void signIn(String key) {
        chrome.get(app.httpUrl() + "/ui/#/sessions");
        new WebDriverWait(chrome, Duration.ofSeconds(30))
                .until(d -> !d.findElements(By.id("api-key")).isEmpty()
                        || !d.findElements(By.id("signout")).isEmpty());
        if (!chrome.findElements(By.id("signout")).isEmpty()) {
            chrome.findElement(By.id("signout")).click();
        }
        await(By.id("api-key")).sendKeys(key);
        chrome.findElement(By.cssSelector("#signin button[type=submit]")).click();
        await(By.id("signout"));
    }

    private static void awaitRow() {
        refresh(
                Duration.ofSeconds(60),
                () -> !chrome.findElements(summaryCell()).isEmpty(),
                "the session was never listed");
    }

    private static void refreshUntil(BooleanSupplier condition) {
        refresh(Duration.ofSeconds(90), condition, "never happened");
    }

    /**
     * Reloads the page until {@code condition} holds on it, a second apart (in this thread: the driver is not
     * thread-safe), and fails with what the page shows.
     */
    private static void refresh(Duration timeout, BooleanSupplier condition, String failure) {
        try {
            Awaitility.await()
                    .atMost(timeout)
                    .pollInSameThread()
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        try {
                            if (condition.getAsBoolean()) {
                                return true;
                            }
                        } catch (org.openqa.selenium.NoSuchElementException
                                | org.openqa.selenium.StaleElementReferenceException e) {
                            // The page is being drawn again.
                        }
                        chrome.navigate().refresh();
                        return false;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(failure + "; the page shows: " + text(By.id("view")), e);
        }
    }

    private static WebElement await(By by) {
        return new WebDriverWait(chrome, Duration.ofSeconds(30))
                .withMessage(() -> by + " never appeared; the page shows: " + text(By.id("view")))
                .until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    private static String awaitText(By by, String part) {
        return new WebDriverWait(chrome, Duration.ofSeconds(30))
                .withMessage(
                        () -> "'" + part + "' never appeared in " + by + "; the page shows: " + text(By.id("view")))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> {
                    for (WebElement element : d.findElements(by)) {
                        if (element.getText().contains(part)) {
                            return element.getText();
                        }
                    }
                    return null;
                });
    }

    private static WebElement awaitRowWith(String part) {
        return awaitRowWith(By.cssSelector("#user-memories tr[data-id]"), part);
    }

    private static WebElement awaitRowWith(By rows, String part) {
        Predicate<WebElement> matches = row -> row.getText().contains(part);
        return new WebDriverWait(chrome, Duration.ofSeconds(30))
                .withMessage(() -> "no row with '" + part + "'; the page shows: " + text(By.id("view")))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElements(rows).stream()
                        .filter(matches)
                        .findFirst()
                        .orElse(null));
    }

    private static String text(By by) {
        List<WebElement> found = chrome.findElements(by);
        return found.isEmpty() ? "" : found.getFirst().getText().trim();
    }

    private static void assertNoScriptRan() {
        assertNull(chrome.executeScript("return window.__xss === undefined ? null : String(window.__xss);"));
    }

    private static void shot(String name) throws IOException {
        Files.write(screenshots.resolve(name + ".png"), chrome.getScreenshotAs(OutputType.BYTES));
    }
}
