package io.reme.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LocalOnnxEmbeddingModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Adding the Chinese model to a running deployment, with the real models: the app restarted with
 * {@code reme.embedding.chinese-model} set re-embeds its Chinese memories in the background while searches keep
 * answering with the English model's vectors, then switches; the query is always embedded by the model whose vectors
 * it is compared with, and a restart after the switch searches with the new model at once.
 */
@Tag("integration")
class EmbeddingSwitchIT extends WithBroker {
    private static final String QUESTION = "他最爱吃哪种水果？";
    private static final String ANSWER = "我最喜欢的水果是芒果，每天早上都吃一个。";
    private static final int FILLERS = 400;

    private static AppConfig config(String chinese) {
        return TestApps.config(
                broker.bootstrapServers(),
                dir.resolve("app"),
                Map.of(
                        AppConfig.PARTITIONS.name(), "2",
                        AppConfig.WORKERS_EMBEDDED.name(), "true",
                        AppConfig.EMBEDDING.name(), "local",
                        AppConfig.EMBEDDING_CHINESE_MODEL.name(), chinese));
    }

    private static JsonNode pipeline(RemeApp app) {
        ApiClient.Response response = ApiClient.send(app, "GET", "/v1/pipeline", TestApps.ACME_KEY, null);
        assertEquals(200, response.status(), response.text());
        return response.json().path("metrics").path("reembedding");
    }

    private static void awaitSwitched(RemeApp app) {
        await("every partition switched to the configured model")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    JsonNode r = pipeline(app);
                    return r.path("partitions").asInt() == 2
                            && r.path("switchedPartitions").asInt() == 2;
                });
    }

    /**
     * One search for the answer (bob's only memory): its vector score (NaN without one), or empty for a partial
     * answer. Right after a start the app's second stream thread may join late and take a partition's task from
     * the first: the search then says that partition is missing, which is an honest answer without a score,
     * not one of either model.
     */
    private static OptionalDouble searchOnce(RemeApp app) {
        ApiClient.Response response = ApiClient.send(
                app,
                "POST",
                "/v1/search",
                TestApps.ACME_KEY,
                Map.of("query", QUESTION, "k", 1, "users", List.of("bob")));
        assertEquals(200, response.status(), response.text());
        JsonNode answer = response.json();
        if (answer.path("partial").asBoolean()) {
            assertFalse(answer.path("missingPartitions").isEmpty(), answer::toString);
            return OptionalDouble.empty();
        }
        JsonNode hit = answer.path("hits").path(0);
        assertEquals(ANSWER, hit.path("text").asText(), answer::toString);
        return OptionalDouble.of(
                hit.hasNonNull("vectorScore") ? hit.path("vectorScore").asDouble() : Double.NaN);
    }

    /** The answer's score from the first whole (not partial) answer, asked again for at most 30 s. */
    private static double answerScore(RemeApp app) {
        OptionalDouble[] score = {OptionalDouble.empty()};
        await("a whole answer")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    score[0] = searchOnce(app);
                    return score[0].isPresent();
                });
        return score[0].getAsDouble();
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
        }
        return dot;
    }

    @Test
    void addingTheChineseModelReembedsInTheBackgroundAndSwitchesWhileSearchesAnswer() throws Exception {
        double english;
        double chinese;
        try (EmbeddingModel en = LocalOnnxEmbeddingModel.builder()
                        .variant(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q)
                        .build();
                EmbeddingModel zh = LocalOnnxEmbeddingModel.builder()
                        .variant(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_ZH_V15_Q)
                        .build()) {
            english = cosine(en.embedQuery(QUESTION), en.embed(ANSWER));
            chinese = cosine(zh.embedQuery(QUESTION), zh.embed(ANSWER));
        }
        assertTrue(Math.abs(english - chinese) > 0.01, "the two models' scores tell them apart");

        try (RemeApp app = RemeApp.start(config("none"))) {
            awaitSwitched(app);
            ApiClient.Response created = ApiClient.send(
                    app,
                    "POST",
                    "/v1/memories",
                    TestApps.ACME_KEY,
                    Map.of("type", "personal", "content", ANSWER, "user", "bob"));
            assertEquals(201, created.status(), created.text());
            for (int i = 0; i < FILLERS; i++) {
                ApiClient.Response filler = ApiClient.send(
                        app,
                        "POST",
                        "/v1/memories",
                        TestApps.ACME_KEY,
                        Map.of(
                                "type",
                                "personal",
                                "content",
                                "第" + i + "天，我在办公室开了" + (i % 7 + 1) + "个会议。",
                                "user",
                                "alice"));
                assertTrue(filler.status() == 201 || filler.status() == 202, filler.text());
            }
            assertEquals(english, answerScore(app), 1e-3, "English model only: the Chinese question in its space");
        }

        List<Double> scores = new CopyOnWriteArrayList<>();
        try (RemeApp app = RemeApp.start(config("bge-small-zh-v1.5-q"))) {
            AtomicBoolean switched = new AtomicBoolean();
            Thread searching = Thread.ofVirtual().start(() -> {
                while (!switched.get()) {
                    searchOnce(app).ifPresent(scores::add);
                }
            });
            awaitSwitched(app);
            // A search that was under way as the switch landed may still be the old model's; those after are new.
            switched.set(true);
            searching.join(Duration.ofSeconds(30));
            scores.add(answerScore(app));
            assertEquals(chinese, answerScore(app), 1e-3, "switched: the Chinese model's vectors");
            assertTrue(pipeline(app).path("reembedded").asLong() > FILLERS, pipeline(app)::toString);
            assertEquals(1.0, pipeline(app).path("progress").asDouble(), 1e-9);
        }
        List<Double> seen = new ArrayList<>(scores);
        assertTrue(Math.abs(seen.get(0) - english) < 1e-3, "searches answered with the old vectors first: " + seen);
        boolean changed = false;
        for (double score : seen) {
            boolean isEnglish = Math.abs(score - english) < 1e-3;
            boolean isChinese = Math.abs(score - chinese) < 1e-3;
            assertTrue(isEnglish || isChinese, "every answer is one model's, never a mix: " + score);
            assertFalse(changed && isEnglish, "never back to the old model once switched: " + seen);
            changed |= isChinese;
        }

        // The switch is durable: a restart searches with the Chinese model at once.
        try (RemeApp app = RemeApp.start(config("bge-small-zh-v1.5-q"))) {
            assertEquals(chinese, answerScore(app), 1e-3);
        }
    }
}
