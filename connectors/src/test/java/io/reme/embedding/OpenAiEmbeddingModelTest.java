package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.provider.OpenAiTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAI-compatible model passes the contract against a local server answering hashed
 * bag-of-words vectors, and maps the server's failures to {@link EmbeddingException}.
 */
class OpenAiEmbeddingModelTest extends EmbeddingModelContract {
    private static final int DIMENSIONS = 64;
    private static final String EMBEDDING_MODEL = "test-embedding";

    private final List<OpenAiTestServer> servers = new ArrayList<>();

    @Override
    protected EmbeddingModel openModel() {
        OpenAiTestServer server = server(request -> OpenAiTestServer.embeddings(request, 1536));
        // Batches of 5: the contract's texts need two requests, its 40 texts eight.
        return new OpenAiEmbeddingModel(settings(server).withBatchSize(5));
    }

    @AfterAll
    void stopServers() {
        servers.forEach(OpenAiTestServer::close);
    }

    private OpenAiTestServer server(Function<JsonNode, OpenAiTestServer.Reply> script) {
        OpenAiTestServer server = OpenAiTestServer.start(script);
        servers.add(server);
        return server;
    }

    private static OpenAiEmbeddingSettings settings(OpenAiTestServer server) {
        return OpenAiEmbeddingSettings.of(server.settings(), EMBEDDING_MODEL, DIMENSIONS);
    }

    @Test
    void idNamesModelAndDimensions() {
        assertEquals("openai:test-embedding/64", model.id());
        assertEquals(DIMENSIONS, model.dimensions());
    }

    @Test
    void asksForFloatsOfTheConfiguredModelAndDimensionsInBatches() throws EmbeddingException {
        OpenAiTestServer server = server(request -> OpenAiTestServer.embeddings(request, 1536));
        try (OpenAiEmbeddingModel client =
                new OpenAiEmbeddingModel(settings(server).withBatchSize(3))) {
            List<float[]> vectors = client.embed(List.of("a b", "c d", "e f", "g h", "i j", "k l", "m n"));
            assertEquals(7, vectors.size());
            assertEquals(DIMENSIONS, vectors.get(6).length);
        }
        List<OpenAiTestServer.Request> requests = server.requests();
        assertEquals(3, requests.size());
        for (OpenAiTestServer.Request request : requests) {
            assertEquals(OpenAiTestServer.EMBEDDINGS_PATH, request.path());
            assertEquals("Bearer " + OpenAiTestServer.API_KEY, request.authorization());
            assertEquals(EMBEDDING_MODEL, request.body().path("model").asText());
            assertEquals("float", request.body().path("encoding_format").asText());
            assertEquals(DIMENSIONS, request.body().path("dimensions").asInt());
        }
        assertEquals(
                List.of(3, 3, 1),
                requests.stream().map(r -> r.body().path("input").size()).toList());
        assertEquals("m n", requests.get(2).body().path("input").get(0).asText());
    }

    @Test
    void canLeaveDimensionsOut() throws EmbeddingException {
        OpenAiTestServer server = server(request -> OpenAiTestServer.embeddings(request, DIMENSIONS));
        try (OpenAiEmbeddingModel client =
                new OpenAiEmbeddingModel(settings(server).withSendDimensions(false))) {
            assertEquals(DIMENSIONS, client.embed("hello").length);
        }
        assertFalse(server.requests().get(0).body().has("dimensions"));
    }

    @Test
    void emptyInputSendsNoRequest() throws EmbeddingException {
        OpenAiTestServer server = server(request -> OpenAiTestServer.embeddings(request, DIMENSIONS));
        try (OpenAiEmbeddingModel client = new OpenAiEmbeddingModel(settings(server))) {
            assertEquals(List.of(), client.embed(List.of()));
        }
        assertEquals(0, server.requests().size());
    }

    @Test
    void putsVectorsInTheOrderOfTheirIndex() throws EmbeddingException {
        float[] first = OpenAiTestServer.hashedVector("first", DIMENSIONS);
        float[] second = OpenAiTestServer.hashedVector("second", DIMENSIONS);
        OpenAiTestServer server = server(request -> new OpenAiTestServer.Reply(
                200, OpenAiTestServer.embeddingsBody(EMBEDDING_MODEL, List.of(first, second), true), Duration.ZERO));
        try (OpenAiEmbeddingModel client = new OpenAiEmbeddingModel(settings(server))) {
            List<float[]> vectors = client.embed(List.of("first", "second"));
            assertTrue(Vectors.dot(first, vectors.get(0)) > 0.9999);
            assertTrue(Vectors.dot(second, vectors.get(1)) > 0.9999);
        }
    }

    @Test
    void normalisesVectorsTheServerDidNot() throws EmbeddingException {
        float[] raw = new float[DIMENSIONS];
        raw[0] = 3;
        raw[1] = 4;
        OpenAiTestServer server = server(request -> new OpenAiTestServer.Reply(
                200, OpenAiTestServer.embeddingsBody(EMBEDDING_MODEL, List.of(raw), false), Duration.ZERO));
        try (OpenAiEmbeddingModel client = new OpenAiEmbeddingModel(settings(server))) {
            float[] vector = client.embed("x");
            assertEquals(0.6f, vector[0], 1e-6);
            assertEquals(0.8f, vector[1], 1e-6);
        }
    }

    @Test
    void aServerErrorIsRetryable() {
        EmbeddingException e = failure(request -> OpenAiTestServer.status(500, "boom"));
        assertTrue(e.retryable());
        assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
    }

    @Test
    void rateLimitingIsRetryable() {
        assertTrue(failure(request -> OpenAiTestServer.status(429, "slow down")).retryable());
    }

    @Test
    void aBadRequestIsNotRetryable() {
        EmbeddingException e = failure(request -> OpenAiTestServer.status(400, "input too long"));
        assertFalse(e.retryable());
        assertTrue(e.getMessage().contains("HTTP 400"), e.getMessage());
    }

    @Test
    void aTimeoutIsRetryable() {
        OpenAiTestServer server = server(
                request -> OpenAiTestServer.embeddings(request, DIMENSIONS).after(Duration.ofSeconds(5)));
        OpenAiEmbeddingSettings slow = new OpenAiEmbeddingSettings(
                server.settings().withRequestTimeout(Duration.ofMillis(300)), EMBEDDING_MODEL, DIMENSIONS, true, 8);
        try (OpenAiEmbeddingModel client = new OpenAiEmbeddingModel(slow)) {
            EmbeddingException e = assertThrows(EmbeddingException.class, () -> client.embed("x"));
            assertTrue(e.retryable(), e.getMessage());
        }
    }

    @Test
    void vectorsOfTheWrongLengthAreAConfigurationError() {
        EmbeddingException e = failure(request -> {
            ObjectNode shorter = ((ObjectNode) request).deepCopy();
            shorter.put("dimensions", 32);
            return OpenAiTestServer.embeddings(shorter, DIMENSIONS);
        });
        assertFalse(e.retryable());
        assertTrue(e.getMessage().contains("32 dimensions"), e.getMessage());
    }

    @Test
    void tooFewVectorsAreRetryable() {
        EmbeddingException e = failure(request -> new OpenAiTestServer.Reply(
                200, OpenAiTestServer.embeddingsBody(EMBEDDING_MODEL, List.of(), false), Duration.ZERO));
        assertTrue(e.retryable());
    }

    @Test
    void aMalformedAnswerIsRetryable() {
        EmbeddingException e =
                failure(request -> new OpenAiTestServer.Reply(200, "{\"object\": \"list\", \"da", Duration.ZERO));
        assertTrue(e.retryable(), e.getMessage());
    }

    private EmbeddingException failure(Function<JsonNode, OpenAiTestServer.Reply> script) {
        OpenAiTestServer server = server(script);
        try (OpenAiEmbeddingModel client = new OpenAiEmbeddingModel(settings(server))) {
            return assertThrows(EmbeddingException.class, () -> client.embed("x"));
        }
    }
}
