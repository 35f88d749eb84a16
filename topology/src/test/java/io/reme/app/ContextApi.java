package io.reme.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** The integration tests' client of the HTTP API's context endpoint. */
final class ContextApi {

    private ContextApi() {}

    /** A response: status and parsed JSON body (missing node when there is none). */
    record Response(int status, JsonNode body) {
        long messagesCounted() {
            return body.path("compaction").path("counters").path("MESSAGES").asLong(0);
        }

        boolean pending() {
            JsonNode pending = body.path("compaction").path("pending");
            return !pending.isMissingNode() && !pending.isNull();
        }
    }

    /**
     * {@code GET /v1/sessions/{session}/context}; {@code token} null sends no Authorization header.
     * A connection failure is status -1, so pollers simply try again.
     */
    static Response get(String baseUrl, String token, String session) {
        return context(baseUrl, token, session, "");
    }

    /**
     * {@code GET /v1/sessions/{session}/context?window=all}: every live message, including those the
     * served context holds back while a compaction is late; what the pipeline checks count.
     */
    static Response wholeWindow(String baseUrl, String token, String session) {
        return context(baseUrl, token, session, "?window=all");
    }

    /** {@code GET /v1/sessions/{session}/context?format=...}: the messages ready to send to a chat API. */
    static Response formatted(String baseUrl, String token, String session, String format) {
        return context(baseUrl, token, session, "?format=" + format);
    }

    private static Response context(String baseUrl, String token, String session, String query) {
        return send(baseUrl + "/v1/sessions/" + session + "/context" + query, token);
    }

    /**
     * {@code GET /v1/diary/{user}/{name}} ({@code name} a date or {@code MEMORY}); a connection
     * failure is status -1.
     */
    static Response diary(String baseUrl, String token, String user, String name) {
        return send(baseUrl + "/v1/diary/" + user + "/" + name, token);
    }

    /** GETs the URL and reads its JSON answer; a connection failure is status -1. */
    private static Response send(String url, String token) {
        ApiClient.Response answer = ApiClient.trySend(ApiClient.request("GET", url, token, null));
        try {
            return new Response(
                    answer.status(),
                    answer.text().isEmpty() ? Json.MAPPER.missingNode() : Json.MAPPER.readTree(answer.text()));
        } catch (IOException e) {
            // Half an answer (the connection broke mid-body): as if none came, pollers try again.
            return new Response(ApiClient.NO_ANSWER, Json.MAPPER.missingNode());
        }
    }

    /**
     * Polls until every session's context has counted exactly its expected messages and has no
     * compaction pending (so no result can change it any more), and returns those contexts, each with
     * its whole window.
     * Fails at once if a session counts more messages than were produced.
     *
     * @param expected session name to number of messages produced
     * @param check called on every round, e.g. to fail fast if a helper died
     */
    static Map<String, JsonNode> awaitSettled(
            Supplier<String> baseUrl, String token, Map<String, Integer> expected, Duration timeout, Runnable check)
            throws InterruptedException {
        return await(baseUrl, token, expected, true, timeout, check);
    }

    /** Polls until every session's context has counted exactly its expected messages, pending or not. */
    static Map<String, JsonNode> awaitCounted(
            Supplier<String> baseUrl, String token, Map<String, Integer> expected, Duration timeout, Runnable check)
            throws InterruptedException {
        return await(baseUrl, token, expected, false, timeout, check);
    }

    private static Map<String, JsonNode> await(
            Supplier<String> baseUrl,
            String token,
            Map<String, Integer> expected,
            boolean settled,
            Duration timeout,
            Runnable check) {
        Map<String, JsonNode> done = new TreeMap<>();
        Map<String, String> last = new HashMap<>();
        try {
            // In this thread: the maps are read after a timeout, and no poll may still be writing them then.
            Awaitility.await("sessions " + (settled ? "settled" : "counted"))
                    .atMost(timeout)
                    .pollInSameThread()
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(settled ? 250 : 20))
                    .failFast("a helper failed", check::run)
                    .until(() -> {
                        for (Map.Entry<String, Integer> session : expected.entrySet()) {
                            if (done.containsKey(session.getKey())) {
                                continue;
                            }
                            Response response = wholeWindow(baseUrl.get(), token, session.getKey());
                            if (response.status() != 200) {
                                last.put(session.getKey(), "status " + response.status() + " " + response.body());
                                continue;
                            }
                            long counted = response.messagesCounted();
                            if (counted > session.getValue()) {
                                // Not retried: more than was produced is wrong whenever it is seen.
                                throw new AssertionError("session " + session.getKey() + " counted " + counted
                                        + " messages but only " + session.getValue() + " were produced");
                            }
                            last.put(
                                    session.getKey(),
                                    counted + "/" + session.getValue() + " messages, pending " + response.pending());
                            if (counted == session.getValue() && !(settled && response.pending())) {
                                done.put(session.getKey(), response.body());
                            }
                        }
                        return done.size() == expected.size();
                    });
        } catch (ConditionTimeoutException e) {
            last.keySet().removeAll(done.keySet());
            throw new AssertionError(
                    "sessions not " + (settled ? "settled" : "counted") + " within " + timeout.toSeconds() + " s: "
                            + last,
                    e);
        }
        return done;
    }
}
