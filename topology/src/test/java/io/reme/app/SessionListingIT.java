package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import io.reme.session.SessionStores;
import io.reme.topic.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/sessions} on two instances sharing the sessions' partitions: either instance lists
 * every session of the caller's tenant (its own partitions and the other's), newest activity first,
 * page by page with the cursor, filtered by user and by activity time, and never another tenant's;
 * erasing a user through one instance removes their sessions on both and is reported by either.
 */
@Tag("integration")
class SessionListingIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final Instant START = Instant.parse("2026-03-02T09:00:00Z");

    @Test
    void listsTheTenantsSessionsAcrossInstancesNewestFirstWithPagingAndFilters() throws Exception {
        Map<String, String> oneThread = Map.of(AppConfig.STREAM_THREADS.name(), "1");
        try (RemeApp a = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("a"), oneThread));
                RemeApp b = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("b"), oneThread))) {
            MultiInstanceIT.awaitStableAssignment(a, b, Duration.ofSeconds(60));
            ConversationGenerator generator = new ConversationGenerator(7, 5, 2_000);

            // First wave: acme's s0..s7 (alice on even, bob on odd) and globex's sessions of a user also named alice.
            Map<String, String> acmeUsers = new LinkedHashMap<>();
            for (int i = 0; i < 8; i++) {
                acmeUsers.put("s" + i, i % 2 == 0 ? "alice" : "bob");
            }
            Map<String, List<Envelope>> acme = new LinkedHashMap<>();
            acmeUsers.forEach((session, user) -> acme.put(session, generator.session("acme", session, user, 8, START)));
            List<Envelope> globex = new ArrayList<>();
            globex.addAll(generator.session("globex", "g0", "alice", 4, START));
            globex.addAll(generator.session("globex", "s0", "alice", 4, START));
            Map<String, Integer> expected = new LinkedHashMap<>();
            try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
                for (Map.Entry<String, List<Envelope>> session : acme.entrySet()) {
                    TestKafka.send(
                            producer, TOPICS.messages(), session.getValue().subList(0, 4));
                    expected.put(session.getKey(), 4);
                }
                TestKafka.send(producer, TOPICS.messages(), globex);
                ContextApi.awaitCounted(a::httpUrl, TestApps.ACME_KEY, expected, Duration.ofSeconds(60), () -> {});
                ContextApi.awaitCounted(
                        a::httpUrl, TestApps.GLOBEX_KEY, Map.of("g0", 4, "s0", 4), Duration.ofSeconds(60), () -> {});

                // Second wave, a moment later: more of s1 and s6, so they move to the front.
                // A pause, not a wait: the clock moves on between the two waves and the instant that parts them.
                Thread.sleep(50);
                Instant between = Instant.now();
                // A pause, not a wait: the instant that parts the waves is strictly before the second.
                Thread.sleep(50);
                for (String session : List.of("s6", "s1")) {
                    TestKafka.send(
                            producer, TOPICS.messages(), acme.get(session).subList(4, 8));
                    expected.put(session, 8);
                }
                ContextApi.awaitCounted(a::httpUrl, TestApps.ACME_KEY, expected, Duration.ofSeconds(60), () -> {});

                Set<HostInfo> owners = new HashSet<>();
                for (String session : acmeUsers.keySet()) {
                    owners.add(a.streams()
                            .queryMetadataForKey(SessionStores.HEADERS, "acme/" + session, new StringSerializer())
                            .activeHost());
                }
                assertEquals(2, owners.size(), "acme's sessions live on both instances: " + owners);

                for (RemeApp app : List.of(a, b)) {
                    List<JsonNode> all = pages(app, TestApps.ACME_KEY, "limit=3");
                    List<String> names =
                            all.stream().map(s -> s.path("session").asText()).toList();
                    assertEquals(8, names.size(), "every acme session once, across pages: " + names);
                    assertEquals(Set.copyOf(acmeUsers.keySet()), Set.copyOf(names));
                    assertEquals(
                            List.of("s1", "s6"),
                            Set.of(names.get(0), names.get(1)).stream().sorted().toList());
                    assertOrdered(all);
                    for (JsonNode session : all) {
                        String name = session.path("session").asText();
                        assertEquals(acmeUsers.get(name), session.path("user").asText());
                        assertEquals(
                                expected.get(name), session.path("liveMessages").asInt(), name);
                        assertTrue(session.path("liveTokens").asLong() > 0, name);
                        assertEquals(0, session.path("summaryVersion").asInt());
                        assertEquals(0, session.path("compactionFailures").asInt());
                        double usage = (session.path("liveTokens").asDouble()
                                        + session.path("summaryTokens").asDouble())
                                / session.path("threshold").asDouble();
                        assertEquals(usage, session.path("windowUsage").asDouble(), 1e-9);
                    }
                    // The session of the same name in globex is not acme's, and acme's s0 keeps its own user.
                    assertFalse(names.contains("g0"));

                    List<String> alice = names(pages(app, TestApps.ACME_KEY, "user=alice&limit=2"));
                    assertEquals(Set.of("s0", "s2", "s4", "s6"), Set.copyOf(alice));
                    assertEquals("s6", alice.get(0), "alice's most recent first");

                    List<String> recent = names(pages(app, TestApps.ACME_KEY, "active_since=" + encode(between)));
                    assertEquals(Set.of("s1", "s6"), Set.copyOf(recent));

                    List<JsonNode> theirs = pages(app, TestApps.GLOBEX_KEY, "");
                    assertEquals(Set.of("g0", "s0"), Set.copyOf(names(theirs)), "globex sees only its own");
                    theirs.forEach(s -> assertEquals("alice", s.path("user").asText()));
                    assertEquals(4, theirs.get(0).path("liveMessages").asInt());
                }

                Answer whole = get(a, TestApps.ACME_KEY, "");
                assertEquals(200, whole.status());
                assertTrue(whole.body().path("nextCursor").isNull(), "one short page has no next: " + whole.body());
                assertFalse(whole.body().path("partial").asBoolean());
                assertEquals(0, whole.body().path("missingPartitions").size());

                assertEquals(401, get(a, null, "").status());
                assertInvalid(a, "limit=0", "limit");
                assertInvalid(a, "limit=501", "limit");
                assertInvalid(a, "active_since=yesterday", "active_since");
                assertInvalid(a, "cursor=not-a-cursor", "cursor");
                // Base64 of "null": once a 500.
                assertInvalid(a, "cursor=bnVsbA", "cursor");
                assertInvalid(a, "user=a/b", "user");
                assertInvalid(a, "order=asc", "order");

                // Erasing bob through A reaches the sessions B holds too, and A reads B's reports to say so.
                ApiClient.Response erased = ApiClient.send(a, "DELETE", "/v1/users/bob", TestApps.ACME_KEY, null);
                assertEquals(200, erased.status(), erased.text());
                assertEquals(4, erased.json().path("removed").path("sessions").asInt(), erased.text());
                assertEquals(20, erased.json().path("removed").path("messages").asInt());
                for (RemeApp app : List.of(a, b)) {
                    List<JsonNode> left = pages(app, TestApps.ACME_KEY, "");
                    left.forEach(s -> assertEquals("alice", s.path("user").asText(), "only alice's left: " + left));
                    assertEquals(4, left.size());
                    assertEquals(2, pages(app, TestApps.GLOBEX_KEY, "").size(), "globex untouched");
                }
                ApiClient.Response status = ApiClient.send(b, "GET", "/v1/users/bob/erasure", TestApps.ACME_KEY, null);
                assertEquals(200, status.status());
                assertEquals(erased.json().path("erasureId"), status.json().path("erasureId"));
                assertTrue(status.json().path("complete").asBoolean());
            }
        }
    }

    /** Follows nextCursor from the first page to the last, returning every session listed. */
    private static List<JsonNode> pages(RemeApp app, String key, String query) {
        List<JsonNode> all = new ArrayList<>();
        String cursor = null;
        for (int page = 0; page < 20; page++) {
            String q = query + (cursor == null ? "" : (query.isEmpty() ? "" : "&") + "cursor=" + cursor);
            Answer answer = get(app, key, q);
            assertEquals(200, answer.status(), q + ": " + answer.body());
            assertFalse(answer.body().path("partial").asBoolean(), "whole: " + answer.body());
            answer.body().path("sessions").forEach(all::add);
            JsonNode next = answer.body().path("nextCursor");
            if (next.isNull()) {
                return all;
            }
            cursor = next.asText();
        }
        throw new AssertionError("more than 20 pages");
    }

    private static void assertOrdered(List<JsonNode> sessions) {
        for (int i = 1; i < sessions.size(); i++) {
            Instant before =
                    Instant.parse(sessions.get(i - 1).path("lastActivity").asText());
            Instant after = Instant.parse(sessions.get(i).path("lastActivity").asText());
            assertTrue(
                    before.isAfter(after)
                            || before.equals(after)
                                    && sessions.get(i - 1)
                                                    .path("session")
                                                    .asText()
                                                    .compareTo(sessions.get(i)
                                                            .path("session")
                                                            .asText())
                                            < 0,
                    "newest first, ties by session: " + sessions);
        }
    }

    private static void assertInvalid(RemeApp app, String query, String parameter) {
        Answer answer = get(app, TestApps.ACME_KEY, query);
        assertEquals(400, answer.status(), query + ": " + answer.body());
        assertTrue(
                answer.body().path("error").path("message").asText().contains(parameter),
                "the error names '" + parameter + "': " + answer.body());
    }

    private static List<String> names(List<JsonNode> sessions) {
        return sessions.stream().map(s -> s.path("session").asText()).toList();
    }

    private static String encode(Instant instant) {
        return URLEncoder.encode(instant.toString(), StandardCharsets.UTF_8);
    }

    private record Answer(int status, JsonNode body) {}

    private static Answer get(RemeApp app, String key, String query) {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(app.httpUrl() + "/v1/sessions" + (query.isEmpty() ? "" : "?" + query)))
                .timeout(Duration.ofSeconds(15))
                .GET();
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        try {
            HttpResponse<String> response = ApiClient.raw(request.build());
            return new Answer(response.statusCode(), Json.MAPPER.readTree(response.body()));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
