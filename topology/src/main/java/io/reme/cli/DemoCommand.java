package io.reme.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.app.RemeApp;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import io.reme.retry.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code demo}: starts the system with a small context window, replays a sample multi-session
 * conversation as tenant {@code demo}, waits until its compactions are applied and its sessions
 * have gone quiet and been written to diaries, and shows contexts, diaries and the personal memories
 * extracted from the conversation as the API serves them.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Start the system and replay a sample conversation so compaction can be seen at work.")
final class DemoCommand implements Callable<Integer> {
    /** Small enough that the sample crosses the threshold; everything else is the defaults. */
    static final Map<String, String> DEMO_SETTINGS = Map.of(
            AppConfig.MAX_INPUT_LENGTH.name(), "3000",
            AppConfig.RESERVE.name(), "500",
            AppConfig.SUMMARY_MAX_TOKENS.name(), "900",
            AppConfig.IDLE_AFTER.name(), "5s");

    @Mixin
    CommonOptions options;

    @Option(names = "--exit", description = "Stop after the replay has been processed and shown.")
    boolean exit;

    @Option(
            names = "--lang",
            paramLabel = "LANG",
            defaultValue = "en",
            description = "The conversations replayed: en (default) or zh (Chinese).")
    String lang;

    /** The conversations a language replays and what the demo then asks of them. */
    record Script(
            String resource,
            String question,
            String retrieve,
            String correction,
            String session,
            String search,
            String user) {
        static final Map<String, Script> BY_LANGUAGE = Map.of(
                "en",
                new Script(
                        "/demo/conversation.json",
                        "which kafka consumer settings did we decide on?",
                        "plan a train trip",
                        "Bob prefers buses over trains now.",
                        "alice-kafka-migration",
                        "trip to Kyoto",
                        "alice"),
                "zh",
                new Script(
                        "/demo/conversation-zh.json",
                        "我们决定了哪些 Kafka 消费者设置？",
                        "坐火车去旅行",
                        "李娜现在更喜欢坐大巴。",
                        "wang-orders-migration",
                        "杭州旅行",
                        "wang"));
    }

    @Override
    public Integer call() throws Exception {
        Script script = Script.BY_LANGUAGE.get(lang);
        if (script == null) {
            System.err.println("--lang takes " + new TreeSet<>(Script.BY_LANGUAGE.keySet()) + ", not '" + lang + "'");
            return 2;
        }
        AppConfig config = options.load(DEMO_SETTINGS);
        RemeApp app = RemeApp.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = ShutdownHook.install(app::close, stopped);
        RunCommand.printBanner(app, System.out);
        String key = app.generatedApiKey();
        if (key == null) {
            System.out.println("demo replays as tenant '" + RemeApp.DEFAULT_TENANT
                    + "', which needs the generated key: " + "run the demo without reme.api.keys");
            return 2;
        }
        Sample sample = replay(app, script.resource());
        System.out.println("replayed "
                + sample.sessions().values().stream()
                        .mapToInt(Integer::intValue)
                        .sum()
                + " messages in " + sample.sessions().size() + " sessions as tenant " + RemeApp.DEFAULT_TENANT
                + "; LLM provider: "
                + (app.llm() == null ? "separate workers" : app.llm().id()));
        HttpClient http = HttpClient.newHttpClient();
        for (Map.Entry<String, Integer> session : sample.sessions().entrySet()) {
            JsonNode context = awaitContext(http, app.httpUrl(), key, session.getKey(), session.getValue());
            describe(session.getKey(), context);
        }
        for (String document : sample.diaries()) {
            awaitJson(http, app.httpUrl() + "/v1/diary/" + document, key, d -> true, "the diary " + document);
        }
        // Idle sessions are written to diaries a few seconds after the replay: wait until nothing changes.
        Set<String> documents = new TreeSet<>(sample.diaries());
        sample.diaries().forEach(d -> documents.add(d.substring(0, d.indexOf('/')) + "/MEMORY"));
        Map<String, JsonNode> shown = settle(
                http,
                app.httpUrl(),
                key,
                documents,
                app.config().get(AppConfig.IDLE_AFTER).multipliedBy(2).plusSeconds(3));
        for (JsonNode diary : shown.values()) {
            System.out.printf(
                    "%n  %s of %s (version %d) ----------------------------------%n",
                    diary.path("path").asText(),
                    diary.path("user").asText(),
                    diary.path("version").asLong());
            System.out.println(indent(diary.path("content").asText()));
        }
        showFiles(app, shown.values());
        showSearchAndMemories(http, app, key, script.question());
        printTryIt(app, key, script);
        System.out.println("Browse it: " + browserUrl(app.httpUrl(), key));
        System.out.println(
                "           (the key rides in the fragment, which browsers never send to the server; the page"
                        + " keeps it for the tab and takes it out of the address bar)");
        if (exit) {
            Runtime.getRuntime().removeShutdownHook(hook);
            app.close();
            return 0;
        }
        stopped.await();
        return 0;
    }

    /** The search the script asks, and the personal memories extracted, as the API answers them. */
    private static void showSearchAndMemories(HttpClient http, RemeApp app, String key, String question)
            throws IOException, InterruptedException {
        JsonNode found = awaitSearch(http, app.httpUrl(), key, question);
        System.out.printf(
                "%n  search \"%s\" (%s ms) ----------------------------------%n",
                question, found.path("timings").path("totalMs").asText());
        for (JsonNode hit : found.path("hits")) {
            JsonNode meta = hit.path("metadata");
            System.out.printf(
                    "    %.3f  %s %s:%s-%s  %s%n",
                    hit.path("score").asDouble(),
                    hit.path("user").asText(),
                    meta.path("path").asText(),
                    meta.path("startLine").asText(),
                    meta.path("endLine").asText(),
                    firstLine(hit.path("text").asText()));
        }
        JsonNode personal = awaitJson(
                http,
                app.httpUrl() + "/v1/memories?type=personal&sort=conversation&order=asc",
                key,
                listing -> listing.path("memories").size() > 0,
                "the personal memories");
        System.out.printf(
                "%n  personal memories (GET /v1/memories?type=personal) ----------------------------------%n");
        for (JsonNode memory : personal.path("memories")) {
            System.out.printf(
                    "    %s  %-6s v%d  %s%n",
                    memory.path("id").asText(),
                    memory.path("target").asText(),
                    memory.path("version").asLong(),
                    memory.path("content").asText());
        }
    }

    /** Commands to try the API with, on what the script replayed. */
    private static void printTryIt(RemeApp app, String key, Script script) {
        System.out.println();
        System.out.println("Try it:  curl -s -H 'Authorization: Bearer " + key + "' " + app.httpUrl()
                + "/v1/memories?type=personal");
        System.out.println("         curl -s -H 'Authorization: Bearer " + key + "' " + app.httpUrl()
                + "/v1/memories/retrieve -H 'Content-Type: application/json' -d '{\"query\":\"" + script.retrieve()
                + "\",\"k\":3}'");
        System.out.println("         curl -s -X PUT -H 'Authorization: Bearer " + key + "' " + app.httpUrl()
                + "/v1/memories/<id> -H 'Content-Type: application/json' -d '{\"content\":\"" + script.correction()
                + "\"}'");
        System.out.println("         curl -s -H 'Authorization: Bearer " + key + "' " + app.httpUrl() + "/v1/sessions/"
                + script.session() + "/context");
        System.out.println("         curl -s -H 'Authorization: Bearer " + key + "' " + app.httpUrl()
                + "/v1/search -H 'Content-Type: application/json' -d '{\"query\":\"" + script.search()
                + "\",\"k\":3}'");
        System.out.println("         curl -s -H 'Authorization: Bearer " + key + "' " + app.httpUrl() + "/v1/diary/"
                + script.user() + "/MEMORY");
        System.out.println();
    }

    /**
     * The memory browser signed in with {@code key}: in the fragment, not the query, so it stays out of
     * the server's and any proxy's request logs and out of Referer headers.
     */
    static String browserUrl(String httpUrl, String key) {
        return httpUrl + "/ui/#key=" + URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    /** What was replayed: messages per session, and the diary documents it should produce (user/name). */
    private record Sample(Map<String, Integer> sessions, Set<String> diaries) {}

    private static Sample replay(RemeApp app, String resource) throws IOException {
        JsonNode sample;
        try (InputStream in = DemoCommand.class.getResourceAsStream(resource)) {
            sample = Json.MAPPER.readTree(in);
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        Set<String> diaries = new TreeSet<>();
        ZoneId zone = app.config().get(AppConfig.ZONE);
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, app.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            int index = 0;
            for (JsonNode message : sample) {
                ObjectNode envelope = ((ObjectNode) message).deepCopy();
                String session = envelope.get("session").asText();
                envelope.put("tenant", RemeApp.DEFAULT_TENANT).put("id", session + "-" + index++);
                counts.merge(session, 1, Integer::sum);
                diaries.add(envelope.get("user").asText() + "/"
                        + OffsetDateTime.parse(envelope.get("time").asText())
                                .atZoneSameInstant(zone)
                                .toLocalDate());
                producer.send(new ProducerRecord<>(
                        app.config().topics().messages(),
                        (RemeApp.DEFAULT_TENANT + "/" + session).getBytes(StandardCharsets.UTF_8),
                        Json.MAPPER.writeValueAsBytes(envelope)));
            }
        }
        return new Sample(counts, diaries);
    }

    /** Waits until the session has every message and no compaction in flight. */
    private static JsonNode awaitContext(HttpClient http, String url, String key, String session, int messages)
            throws IOException, InterruptedException {
        return awaitJson(
                http,
                url + "/v1/sessions/" + session + "/context",
                key,
                context -> context.path("compaction")
                                        .path("counters")
                                        .path("MESSAGES")
                                        .asInt()
                                >= messages
                        && context.path("compaction").path("pending").isNull(),
                "session " + session);
    }

    private static JsonNode awaitJson(HttpClient http, String url, String key, Predicate<JsonNode> done, String what)
            throws IOException, InterruptedException {
        return awaitJson(
                http,
                HttpRequest.newBuilder(URI.create(url))
                        .header("Authorization", "Bearer " + key)
                        .GET()
                        .build(),
                done,
                what);
    }

    /** Sends the request until its answer is 200 and passes {@code done}; fails after 90 s. */
    private static JsonNode awaitJson(HttpClient http, HttpRequest request, Predicate<JsonNode> done, String what)
            throws IOException, InterruptedException {
        int[] status = {0};
        return Poll.first(Duration.ofSeconds(90), Duration.ofMillis(250), () -> {
                    HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
                    status[0] = response.statusCode();
                    if (response.statusCode() != 200) {
                        return Optional.<JsonNode>empty();
                    }
                    JsonNode body = Json.MAPPER.readTree(response.body());
                    return done.test(body) ? Optional.of(body) : Optional.<JsonNode>empty();
                })
                .orElseThrow(() ->
                        new IllegalStateException(what + " was not ready within 90 s (last status " + status[0] + ")"));
    }

    /** Reads the documents until none has changed for {@code quiet}; absent ones are left out. */
    private static Map<String, JsonNode> settle(
            HttpClient http, String url, String key, Set<String> documents, Duration quiet)
            throws IOException, InterruptedException {
        Map<String, JsonNode> last = new LinkedHashMap<>();
        long stableSince = System.nanoTime();
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() - stableSince < quiet.toNanos() && System.nanoTime() < deadline) {
            Map<String, JsonNode> now = new LinkedHashMap<>();
            for (String document : documents) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/diary/" + document))
                        .header("Authorization", "Bearer " + key)
                        .GET()
                        .build();
                HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
                if (response.statusCode() == 200) {
                    now.put(document, Json.MAPPER.readTree(response.body()));
                }
            }
            if (!now.equals(last)) {
                last = now;
                stableSince = System.nanoTime();
            }
            Thread.sleep(500);
        }
        return last;
    }

    /**
     * Waits until the file sinks have written the documents shown (when they run in this process)
     * and lists the working directory, where the same memory can be read and edited as files.
     */
    private static void showFiles(RemeApp app, Collection<JsonNode> diaries) throws IOException, InterruptedException {
        if (!app.config().sinksEmbedded()) {
            return;
        }
        Path root = app.config().workspaceDir().resolve(RemeApp.DEFAULT_TENANT);
        long deadline = System.nanoTime() + 30_000_000_000L;
        for (JsonNode diary : diaries) {
            Path file = root.resolve(diary.path("user").asText())
                    .resolve(diary.path("path").asText());
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            // Shown as far as the sinks got: the listing below says what is there.
            Poll.until(
                    left,
                    Duration.ofMillis(100),
                    () -> Files.exists(file)
                            && Files.readString(file)
                                    .equals(diary.path("content").asText()));
        }
        System.out.printf(
                "%n  files in %s (edit MEMORY.md or a diary: it becomes the next version) ---------%n",
                app.config().workspaceDir());
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                System.out.printf(
                        "    %-60s %,9d bytes%n", app.config().workspaceDir().relativize(file), Files.size(file));
            }
        }
    }

    /** Diary chunks are embedded and indexed shortly after the diaries settle. */
    private static JsonNode awaitSearch(HttpClient http, String url, String key, String question)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/search"))
                .header("Authorization", "Bearer " + key)
                .POST(HttpRequest.BodyPublishers.ofString(
                        Json.MAPPER.writeValueAsString(Map.of("query", question, "k", 3))))
                .build();
        return awaitJson(http, request, body -> body.path("hits").size() > 0, "a search hit for \"" + question + "\"");
    }

    /** The first line with content (not a heading or the offline marker), shortened. */
    private static String firstLine(String text) {
        String line = text.strip()
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("_("))
                .findFirst()
                .orElse(text.strip());
        return line.length() > 90 ? line.substring(0, 90) + "…" : line;
    }

    private static String indent(String text) {
        return "    " + text.strip().replace("\n", "\n    ");
    }

    private static void describe(String session, JsonNode context) {
        JsonNode tokens = context.path("tokens");
        JsonNode compaction = context.path("compaction");
        JsonNode counters = compaction.path("counters");
        System.out.printf(
                "%n  session %s (user %s)%n", session, context.path("user").asText());
        System.out.printf(
                "    live messages %d, tokens: messages %d + summary %d = %d; threshold %d (%s)%n",
                context.path("messages").size(),
                tokens.path("messages").asLong(),
                tokens.path("summary").asLong(),
                tokens.path("total").asLong(),
                tokens.path("threshold").asLong(),
                tokens.path("encoding").asText());
        System.out.printf(
                "    tool outputs truncated %d; compactions applied %d (requested %d, failed %d)%n",
                counters.path("TRUNCATED_OUTPUTS").asLong(),
                counters.path("COMPACTIONS_APPLIED").asLong(),
                counters.path("COMPACTIONS_REQUESTED").asLong(),
                counters.path("COMPACTIONS_FAILED").asLong());
        String summary = context.path("summary").asText();
        if (!summary.isBlank()) {
            System.out.printf(
                    "    summary (version %d):%n%s%n",
                    context.path("summaryVersion").asInt(), indent(summary));
        }
    }
}
