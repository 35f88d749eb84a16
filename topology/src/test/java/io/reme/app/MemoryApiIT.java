package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memory CRUD over HTTP on two instances: a write answered by one instance is read at once through
 * the other; edits keep the id and keep the old content; listings filter, sort and page; another
 * tenant's id is 404; bad input is 400 with a message.
 */
@Tag("integration")
class MemoryApiIT extends WithBroker {
    private static RemeApp a;
    private static RemeApp b;

    @BeforeAll
    static void startApps() {
        Map<String, String> extra = Map.of(AppConfig.STREAM_THREADS.name(), "1");
        a = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("a"), extra));
        b = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("b"), extra));
    }

    @AfterAll
    static void stopApps() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private static ApiClient.Response call(RemeApp app, String method, String path, Object body) {
        return ApiClient.send(app, method, path, TestApps.ACME_KEY, body);
    }

    private static Map<String, Object> memory(String type, String target, String content, Object... more) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type);
        if (target != null) {
            body.put("target", target);
        }
        body.put("content", content);
        for (int i = 0; i < more.length; i += 2) {
            body.put((String) more[i], more[i + 1]);
        }
        return body;
    }

    private static String created(RemeApp app, Map<String, Object> body) {
        ApiClient.Response response = call(app, "POST", "/v1/memories", body);
        assertEquals(201, response.status(), response.text());
        assertTrue(response.json().path("visible").asBoolean());
        return response.json().path("id").asText();
    }

    private static List<String> ids(JsonNode listing) {
        List<String> ids = new ArrayList<>();
        listing.path("memories").forEach(m -> ids.add(m.path("id").asText()));
        return ids;
    }

    @Test
    void aWriteOnOneInstanceIsReadAtOnceOnTheOtherAndEditsKeepTheId() {
        // Several memories, so both instances own some of the partitions involved.
        for (int round = 0; round < 6; round++) {
            RemeApp writer = round % 2 == 0 ? a : b;
            RemeApp reader = round % 2 == 0 ? b : a;
            String id = created(
                    writer,
                    memory(
                            "personal",
                            null,
                            "likes green tea, round " + round,
                            "user",
                            "alice",
                            "metadata",
                            Map.of("source", "test")));
            ApiClient.Response read = call(reader, "GET", "/v1/memories/" + id, null);
            assertEquals(200, read.status(), "read-your-writes through the other instance: " + read.text());
            assertEquals(
                    "likes green tea, round " + round,
                    read.json().path("content").asText());
            assertEquals("alice", read.json().path("target").asText(), "a personal memory is about its user");
            assertEquals("personal", read.json().path("type").asText());
            assertEquals(1, read.json().path("version").asLong());

            ApiClient.Response edited = call(
                    reader,
                    "PUT",
                    "/v1/memories/" + id,
                    Map.of("content", "prefers coffee now, round " + round, "version", 1));
            assertEquals(200, edited.status(), edited.text());
            assertEquals(id, edited.json().path("id").asText());
            JsonNode again = call(writer, "GET", "/v1/memories/" + id, null).json();
            assertEquals(
                    "prefers coffee now, round " + round, again.path("content").asText());
            assertEquals(2, again.path("version").asLong());
            assertEquals(
                    "likes green tea, round " + round,
                    again.path("history").get(0).path("content").asText());
            assertEquals("test", again.path("metadata").path("source").asText(), "metadata kept when not given");

            ApiClient.Response stale = call(writer, "PUT", "/v1/memories/" + id, Map.of("content", "x", "version", 1));
            assertEquals(409, stale.status(), stale.text());
        }
    }

    @Test
    void anotherTenantsIdIsNotFoundAndNeverShown() {
        String id = created(a, memory("tool", "grep", "grep -r is slow on node_modules; use rg"));
        for (RemeApp app : List.of(a, b)) {
            for (String method : List.of("GET", "DELETE")) {
                ApiClient.Response response =
                        ApiClient.send(app, method, "/v1/memories/" + id, TestApps.GLOBEX_KEY, null);
                assertEquals(404, response.status(), response.text());
                assertFalse(response.text().contains("node_modules"), "never the content: " + response.text());
            }
            ApiClient.Response put = ApiClient.send(
                    app, "PUT", "/v1/memories/" + id, TestApps.GLOBEX_KEY, Map.of("content", "taken over"));
            assertEquals(404, put.status(), put.text());
            JsonNode globexList = ApiClient.send(app, "GET", "/v1/memories?limit=500", TestApps.GLOBEX_KEY, null)
                    .json();
            assertFalse(ids(globexList).contains(id));
        }
        assertEquals(
                "grep -r is slow on node_modules; use rg",
                call(b, "GET", "/v1/memories/" + id, null)
                        .json()
                        .path("content")
                        .asText(),
                "untouched by globex");
    }

    @Test
    void deleteRemovesTheMemoryEverywhere() {
        String id = created(b, memory("procedural", "deploy the site", "run make deploy with --sudo"));
        ApiClient.Response deleted = call(a, "DELETE", "/v1/memories/" + id, null);
        assertEquals(200, deleted.status(), deleted.text());
        assertEquals(404, call(b, "GET", "/v1/memories/" + id, null).status());
        assertEquals(404, call(a, "GET", "/v1/memories/" + id, null).status());
        assertFalse(ids(call(a, "GET", "/v1/memories?target=" + enc("deploy the site"), null)
                        .json())
                .contains(id));
        assertEquals(404, call(a, "DELETE", "/v1/memories/" + id, null).status());
    }

    @Test
    void listingsFilterSortAndPage() {
        String target = "listing-" + System.nanoTime();
        List<String> byConversation = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            // Conversation times run backwards against creation order.
            String id = created(
                    i % 2 == 0 ? a : b,
                    memory(
                            i < 5 ? "tool" : "procedural",
                            target,
                            "note " + i,
                            "conversationTime",
                            "2026-01-0" + (9 - i) + "T10:00:00Z",
                            "metadata",
                            Map.of("parity", i % 2 == 0 ? "even" : "odd")));
            byConversation.add(0, id);
        }
        List<String> byCreation = new ArrayList<>(byConversation);
        Collections.reverse(byCreation);
        String base = "/v1/memories?target=" + enc(target);

        assertEquals(
                byCreation,
                ids(call(a, "GET", base + "&sort=created&order=asc", null).json()));
        assertEquals(
                byConversation,
                ids(call(b, "GET", base + "&sort=conversation&order=asc", null).json()));
        List<String> newestFirst = new ArrayList<>(byCreation);
        Collections.reverse(newestFirst);
        assertEquals(newestFirst, ids(call(b, "GET", base, null).json()), "default: newest created first");

        assertEquals(
                List.of(byCreation.get(5), byCreation.get(6)),
                ids(call(a, "GET", base + "&type=procedural&sort=created&order=asc", null)
                        .json()));
        assertEquals(
                List.of(byCreation.get(1), byCreation.get(3)),
                ids(call(a, "GET", base + "&type=tool&meta.parity=odd&sort=created&order=asc", null)
                        .json()));
        assertEquals(
                List.of(byCreation.get(3), byCreation.get(4)),
                ids(call(
                                a,
                                "GET",
                                base
                                        + "&sort=conversation&order=desc&from=2026-01-05T00:00:00Z&to=2026-01-07T00:00:00Z",
                                null)
                        .json()),
                "from inclusive, to exclusive, on the sort's time");
        assertEquals(List.of(), ids(call(a, "GET", base + "&user=nobody", null).json()));

        for (String order : List.of("asc", "desc")) {
            List<String> paged = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            do {
                JsonNode page = call(
                                pages % 2 == 0 ? a : b,
                                "GET",
                                base + "&sort=updated&order=" + order + "&limit=3"
                                        + (cursor == null ? "" : "&cursor=" + cursor),
                                null)
                        .json();
                paged.addAll(ids(page));
                cursor = page.path("nextCursor").isMissingNode()
                                || page.path("nextCursor").isNull()
                        ? null
                        : page.path("nextCursor").asText();
                pages++;
                assertFalse(page.path("partial").asBoolean(), page.toString());
            } while (cursor != null && pages < 10);
            List<String> expected = new ArrayList<>(byCreation);
            if (order.equals("desc")) {
                Collections.reverse(expected);
            }
            assertEquals(expected, paged, "pages in " + order + " order, each memory once");
            assertEquals(3, pages, "3 + 3 + 1");
        }
    }

    @Test
    void badInputIsA400ThatSaysWhatIsWrong() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("{\"content\":\"x\",\"target\":\"t\"}", "'type' is required");
        cases.put("{\"type\":\"diary_chunk\",\"content\":\"x\",\"target\":\"t\"}", "'type' must be personal");
        cases.put("{\"type\":\"mood\",\"content\":\"x\",\"target\":\"t\"}", "unknown memory type 'mood'");
        cases.put("{\"type\":\"tool\",\"content\":\"  \",\"target\":\"t\"}", "'content' must be a non-empty string");
        cases.put("{\"type\":\"tool\",\"content\":\"x\"}", "'target' is required");
        cases.put("{\"type\":\"personal\",\"content\":\"x\",\"user\":\"a/b\"}", "user must match");
        cases.put(
                "{\"type\":\"tool\",\"content\":\"x\",\"target\":\"t\",\"metadata\":{\"n\":1}}",
                "metadata 'n' must be a string");
        cases.put(
                "{\"type\":\"tool\",\"content\":\"x\",\"target\":\"t\",\"conversationTime\":\"yesterday\"}",
                "'conversationTime' must be an ISO-8601 instant");
        cases.put(
                "{\"type\":\"tool\",\"content\":\"x\",\"target\":\"t\",\"colour\":\"red\"}", "unknown field 'colour'");
        cases.put("[1,2]", "the body must be a JSON object");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            ApiClient.Response response = call(a, "POST", "/v1/memories", c.getKey());
            assertEquals(400, response.status(), c.getKey() + " -> " + response.text());
            assertTrue(
                    response.json().path("error").path("message").asText().contains(c.getValue()),
                    c.getKey() + " -> " + response.text());
        }
        for (String query : List.of(
                "sort=size",
                "order=up",
                "limit=0",
                "limit=x",
                "cursor=nonsense",
                // Base64 of "null": once a 500.
                "cursor=bnVsbA",
                // More filters than the index query may hold: once a 200 with a partition "missing".
                IntStream.range(0, 65).mapToObj(i -> "meta.k" + i + "=v").collect(Collectors.joining("&")),
                IntStream.range(0, 65).mapToObj(i -> "user=u" + i).collect(Collectors.joining("&")),
                "colour=red",
                "from=monday",
                "type=mood")) {
            ApiClient.Response response = call(b, "GET", "/v1/memories?" + query, null);
            assertEquals(400, response.status(), query + " -> " + response.text());
            assertNotEquals(null, response.errorCode());
        }
        assertEquals(400, call(a, "GET", "/v1/memories/bad*id", null).status());
        String id = created(a, memory("tool", "t", "x"));
        ApiClient.Response empty = call(b, "PUT", "/v1/memories/" + id, Map.of());
        assertEquals(400, empty.status(), empty.text());
        String cursor = call(a, "GET", "/v1/memories?limit=1&sort=created", null)
                .json()
                .path("nextCursor")
                .asText();
        ApiClient.Response mismatch = call(a, "GET", "/v1/memories?limit=1&sort=updated&cursor=" + cursor, null);
        assertEquals(400, mismatch.status(), mismatch.text());
        assertNull(call(a, "GET", "/v1/memories/" + id, null).json().get("vector"), "vectors are not shown");
        assertEquals(
                new HashSet<>(List.of(id)),
                new HashSet<>(List.of(call(b, "GET", "/v1/memories/" + id, null)
                        .json()
                        .path("id")
                        .asText())));
    }

    @Test
    void retrieveAnswersPerTypeWithinTheTenant() {
        String marker = "zanzibar" + System.nanoTime();
        String personal = created(a, memory("personal", "bob", "Bob flies to " + marker + " in May"));
        String tool = created(b, memory("tool", "flights-api", "flights-api needs the " + marker + " airport code"));
        created(a, memory("procedural", "book a flight", "search " + marker + " fares before booking"));
        ApiClient.Response other = ApiClient.send(
                a,
                "POST",
                "/v1/memories",
                TestApps.GLOBEX_KEY,
                memory("personal", "bob", "Globex's Bob also flies to " + marker));
        assertEquals(201, other.status(), other.text());

        JsonNode answer = call(
                        b,
                        "POST",
                        "/v1/memories/retrieve",
                        Map.of("query", marker, "types", List.of("personal", "tool"), "k", 3))
                .json();
        assertEquals(List.of("personal", "tool"), fieldNames(answer.path("results")));
        assertEquals(List.of(personal), hitIds(answer.path("results").path("personal")), "never globex's: " + answer);
        assertEquals(List.of(tool), hitIds(answer.path("results").path("tool")));
        assertFalse(answer.path("partial").asBoolean());

        JsonNode all = call(a, "POST", "/v1/memories/retrieve", Map.of("query", marker))
                .json();
        assertEquals(
                List.of("personal", "procedural", "tool"),
                fieldNames(all.path("results")),
                "all three types by default");
        JsonNode targeted = call(
                        a, "POST", "/v1/memories/retrieve", Map.of("query", marker, "targets", List.of("flights-api")))
                .json();
        assertEquals(List.of(), hitIds(targeted.path("results").path("personal")));
        assertEquals(List.of(tool), hitIds(targeted.path("results").path("tool")));
        JsonNode past = call(
                        a,
                        "POST",
                        "/v1/memories/retrieve",
                        Map.of("query", marker, "timeRange", Map.of("to", "2020-01-01T00:00:00Z")))
                .json();
        assertEquals(List.of(), hitIds(past.path("results").path("personal")), "created now, not before 2020");

        for (Object bad : List.of(
                Map.of(),
                Map.of("query", " "),
                Map.of("query", "x", "types", List.of("diary_chunk")),
                Map.of("query", "x", "k", 0),
                Map.of("query", "x", "k", 51),
                Map.of("query", "x", "colour", "red"),
                Map.of("query", "x", "timeRange", Map.of("from", "soon")))) {
            ApiClient.Response response = call(a, "POST", "/v1/memories/retrieve", bad);
            assertEquals(400, response.status(), bad + " -> " + response.text());
        }
    }

    @Test
    void aQueryAskingTwoQuestionsFindsEachQuestionsMemory() {
        String marker = "quokka" + System.nanoTime();
        created(a, memory("personal", "alice", "my cousin works at the Shenzhen design institute " + marker));
        created(a, memory("personal", "alice", "the Shenzhen design institute where my cousin works moved " + marker));
        created(b, memory("personal", "alice", "my cousin's design institute in Shenzhen hires engineers " + marker));
        String fair = created(b, memory("personal", "alice", "the book fair opens on Friday " + marker));
        String asked = "Where does my cousin work at the Shenzhen design institute " + marker + "? When is the fair?";

        // Three memories about the cousin: one search's top three, with no room for the fair.
        JsonNode whole = call(a, "POST", "/v1/search", Map.of("query", asked.replace('?', '.'), "k", 3))
                .json();
        assertFalse(hitIds(whole.path("hits")).contains(fair), "one search ranks the cousin first: " + whole);
        assertFalse(whole.path("timings").has("questions"), whole::toString);

        JsonNode answer =
                call(b, "POST", "/v1/search", Map.of("query", asked, "k", 3)).json();
        List<String> hits = hitIds(answer.path("hits"));
        assertEquals(3, hits.size(), answer::toString);
        assertEquals(hitIds(whole.path("hits")).get(0), hits.get(0), "the whole query's best first: " + answer);
        assertTrue(hits.contains(fair), "the second question's memory in the top three: " + answer);
        assertEquals(2, answer.path("timings").path("questions").asInt(), answer::toString);
        assertFalse(answer.path("partial").asBoolean());
    }

    @Test
    void aQuestionNamingAThingByOneFactFindsTheFactAsked() {
        String place = created(a, memory("personal", "alice", "灯笼节的地点是广东深圳。"));
        created(a, memory("personal", "alice", "读书会的持续时间是两天。"));
        created(b, memory("personal", "alice", "电竞节的持续时间是三个周。"));
        String asked = created(b, memory("personal", "alice", "灯笼节会持续九天。"));

        JsonNode answer = call(a, "POST", "/v1/search", Map.of("query", "那个地点是广东深圳的活动，持续时间是什么？", "k", 2))
                .json();
        // The place names the festival; of the memories that say how long something lasts, the festival's.
        assertEquals(List.of(place, asked), hitIds(answer.path("hits")), answer::toString);
    }

    private static List<String> hitIds(JsonNode hits) {
        List<String> ids = new ArrayList<>();
        hits.forEach(h -> ids.add(h.path("id").asText()));
        return ids;
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
