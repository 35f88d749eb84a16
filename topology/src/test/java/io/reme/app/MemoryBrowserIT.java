package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import java.io.IOException;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory browser end to end in headless Chromium against one instance on the in-JVM broker, a
 * small window, the embedded offline LLM workers and file sinks: sign in, watch a session compact,
 * open it and load a truncated tool output's full text, edit MEMORY.md (and survive a conflicting
 * edit), add, edit and delete a memory, find it by search, read the pipeline page, and see that the
 * other tenant's key shows none of it. Text that looks like HTML or a script link stays text.
 * Screenshots go to {@code target/ui-screenshots} (or {@code -Dreme.ui.screenshots=<dir>}).
 */
@Tag("integration")
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
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("session", SESSION);
        message.put("user", USER);
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
        return By.cssSelector("tr[data-session='" + SESSION + "'] td.summary");
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
