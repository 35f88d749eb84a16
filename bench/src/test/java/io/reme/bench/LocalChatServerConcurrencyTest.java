package io.reme.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The stand-in endpoint on Jetty: a request stalled by the SLOW mode holds up no other. */
class LocalChatServerConcurrencyTest {
    private static final String SUMMARY_REQUEST =
            "{\"model\":\"bench-model\",\"messages\":[{\"role\":\"system\",\"content\":\"Summarise.\"}]}";

    @Test
    void aStalledRequestDoesNotDelayTheNext() throws Exception {
        // Its own client: HTTP/1.1, a stalled request holds its connection (and bench cannot see ApiClient).
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (LocalChatServer server = LocalChatServer.start(Duration.ZERO)) {
            server.mode(LocalChatServer.Mode.SLOW);
            CompletableFuture<HttpResponse<String>> stalled =
                    http.sendAsync(post(server, SUMMARY_REQUEST), HttpResponse.BodyHandlers.ofString());
            // Give the stalled request time to reach the server and read the mode.
            // A pause, not a wait: the stalled request reaches the server, which shows nothing of it.
            Thread.sleep(500);
            server.mode(LocalChatServer.Mode.GOOD);

            long start = System.nanoTime();
            HttpResponse<String> answer =
                    http.send(post(server, SUMMARY_REQUEST), HttpResponse.BodyHandlers.ofString());
            long millis = (System.nanoTime() - start) / 1_000_000;

            assertEquals(200, answer.statusCode());
            assertEquals(
                    "application/json",
                    answer.headers().firstValue("Content-Type").orElse(""));
            assertTrue(answer.body().contains("## Goal"), answer.body());
            assertTrue(millis < 5_000, "answered in " + millis + " ms");
            assertFalse(stalled.isDone(), "the SLOW request was answered early");
            assertEquals(1, server.answered());
        }
    }

    @Test
    void onlyPostOnTheChatPathIsAnswered() throws Exception {
        // Its own client: the bench module does not see the application's test classes (ApiClient).
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (LocalChatServer server = LocalChatServer.start(Duration.ZERO)) {
            HttpResponse<String> get = http.send(
                    HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> elsewhere = http.send(
                    HttpRequest.newBuilder(URI.create(server.baseUrl() + "/embeddings"))
                            .POST(HttpRequest.BodyPublishers.ofString("{}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertEquals(405, get.statusCode());
            assertEquals(404, elsewhere.statusCode());
            assertEquals(0, server.answered());
        }
    }

    private static HttpRequest post(LocalChatServer server, String body) {
        return HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
