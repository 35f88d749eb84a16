package io.reme.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.app.RemeApp;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code demo}: starts the system with a small context window, replays a sample multi-session
 * conversation as tenant {@code demo}, and shows each session's context as the API serves it.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start the system and replay a sample conversation so compaction can be seen at work.")
final class DemoCommand implements Callable<Integer> {
    /** Small enough that the sample crosses the threshold; everything else is the defaults. */
    static final Map<String, String> DEMO_SETTINGS = Map.of(
            AppConfig.MAX_INPUT_LENGTH.name(), "2500",
            AppConfig.RESERVE.name(), "500");

    @Mixin
    CommonOptions options;

    @Option(names = "--exit", description = "Stop after the replay has been processed and shown.")
    boolean exit;

    @Override
    public Integer call() throws Exception {
        AppConfig config = options.load(DEMO_SETTINGS);
        RemeApp app = RemeApp.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            app.close();
            stopped.countDown();
        }, "reme-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        RunCommand.printBanner(app, System.out);
        String key = app.generatedApiKey();
        if (key == null) {
            System.out.println("demo replays as tenant '" + RemeApp.DEFAULT_TENANT + "', which needs the generated key: "
                    + "run the demo without reme.api.keys");
            return 2;
        }
        Map<String, Integer> expected = replay(app);
        System.out.println("replayed " + expected.values().stream().mapToInt(Integer::intValue).sum() + " messages in "
                + expected.size() + " sessions as tenant " + RemeApp.DEFAULT_TENANT);
        HttpClient http = HttpClient.newHttpClient();
        for (Map.Entry<String, Integer> session : expected.entrySet()) {
            JsonNode context = awaitContext(http, app.httpUrl(), key, session.getKey(), session.getValue());
            describe(session.getKey(), context);
        }
        System.out.println();
        System.out.println("Try it:  curl -s -H 'Authorization: Bearer " + key + "' " + app.httpUrl()
                + "/v1/sessions/alice-kafka-migration/context");
        if (exit) {
            Runtime.getRuntime().removeShutdownHook(hook);
            app.close();
            return 0;
        }
        stopped.await();
        return 0;
    }

    private static Map<String, Integer> replay(RemeApp app) throws IOException {
        JsonNode sample;
        try (InputStream in = DemoCommand.class.getResourceAsStream("/demo/conversation.json")) {
            sample = Json.MAPPER.readTree(in);
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, app.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            int index = 0;
            for (JsonNode message : sample) {
                ObjectNode envelope = ((ObjectNode) message).deepCopy();
                String session = envelope.get("session").asText();
                envelope.put("tenant", RemeApp.DEFAULT_TENANT).put("id", session + "-" + index++);
                counts.merge(session, 1, Integer::sum);
                producer.send(new ProducerRecord<>(app.config().topics().messages(),
                        (RemeApp.DEFAULT_TENANT + "/" + session).getBytes(StandardCharsets.UTF_8),
                        Json.MAPPER.writeValueAsBytes(envelope)));
            }
        }
        return counts;
    }

    private static JsonNode awaitContext(HttpClient http, String url, String key, String session, int messages)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/sessions/" + session + "/context"))
                .header("Authorization", "Bearer " + key).GET().build();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() == 200) {
                JsonNode context = Json.MAPPER.readTree(response.body());
                if (context.path("compaction").path("counters").path("MESSAGES").asInt() >= messages) {
                    return context;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("session " + session + " was not processed within 60 s (last status "
                        + response.statusCode() + ")");
            }
            Thread.sleep(200);
        }
    }

    private static void describe(String session, JsonNode context) {
        JsonNode tokens = context.path("tokens");
        JsonNode compaction = context.path("compaction");
        JsonNode counters = compaction.path("counters");
        System.out.printf("%n  session %s (user %s)%n", session, context.path("user").asText());
        System.out.printf("    live messages %d, tokens: messages %d + summary %d = %d; threshold %d (%s)%n",
                context.path("messages").size(), tokens.path("messages").asLong(), tokens.path("summary").asLong(),
                tokens.path("total").asLong(), tokens.path("threshold").asLong(), tokens.path("encoding").asText());
        System.out.printf("    tool outputs truncated %d%n", counters.path("TRUNCATED_OUTPUTS").asLong());
        JsonNode pending = compaction.path("pending");
        if (pending.isObject()) {
            System.out.printf("    compaction requested: %d messages (seq %d-%d, %d tokens), request %s, epoch %d%n",
                    pending.path("messageCount").asInt(), pending.path("fromSeq").asLong(), pending.path("toSeq").asLong(),
                    pending.path("tokens").asLong(), pending.path("requestId").asText(), pending.path("epoch").asLong());
            System.out.println("    (it waits on the llm.requests topic for an LLM worker)");
        } else {
            System.out.println("    under threshold: no compaction needed");
        }
    }
}
