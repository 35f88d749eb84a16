package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The ledger of {@code bench cluster}: every message and memory the API accepted (a 2xx), in the order
 * accepted per session, and the largest window served to each session; and the check of the promises
 * against what the cluster holds at the end ({@link #check}).
 *
 * <p>Thread-safe: the load's threads record into it at once; {@link #check} reads what was recorded
 * before it was called.
 */
final class ClusterLedger {
    private static final int MAX_INPUT = FaultBenchOptions.MAX_INPUT;
    private static final Topics TOPICS = Topics.withDefaultPrefix();

    /** One agent session of the load, and the user its memories belong to. */
    record Session(String tenant, String id, String user) {
        String key() {
            return tenant + "/" + id;
        }
    }

    /** An accepted memory: its id and the word only it contains. */
    record Memory(Session session, String id, String word) {}

    /** What the check counted; {@code violations} says each broken promise. */
    record Tally(
            long accepted,
            long lost,
            long duplicated,
            long outOfOrder,
            long archived,
            long undiarised,
            long deadLettered,
            long fileMismatches,
            long memoriesMissing,
            long windowMax,
            List<String> violations) {}

    private final List<Session> sessions;
    /** Accepted message ids per session ({@code tenant/session}), in the order they were accepted. */
    private final Map<String, List<String>> accepted = new ConcurrentHashMap<>();

    private final List<Memory> memories = new CopyOnWriteArrayList<>();
    private final Map<String, Long> largestWindow = new ConcurrentHashMap<>();

    ClusterLedger(List<Session> sessions) {
        this.sessions = List.copyOf(sessions);
        for (Session session : sessions) {
            accepted.put(session.key(), new CopyOnWriteArrayList<>());
        }
    }

    List<Session> sessions() {
        return sessions;
    }

    /** The session's messages {@code ids}, accepted in this order after those before. */
    void accepted(Session session, List<String> ids) {
        accepted.get(session.key()).addAll(ids);
    }

    /** A memory the API accepted as {@code id}, holding {@code word}. */
    void memory(Session session, String id, String word) {
        memories.add(new Memory(session, id, word));
    }

    /** A context of the session served with {@code tokens} in its window. */
    void served(Session session, long tokens) {
        largestWindow.merge(session.key(), tokens, Math::max);
    }

    int memoryCount() {
        return memories.size();
    }

    /**
     * Checks the promises: each accepted message exactly once and in order, live (read through {@code api})
     * or archived on the dialog topic; the dialog files in {@code workspace} equal the topic; each archived
     * message in a diary or a dead letter; each accepted memory listed and found by search; no served window
     * above its maximum.
     *
     * @param admin the client settings that read the topics
     */
    Tally check(ClusterApi api, Properties admin, Path workspace) throws IOException {
        List<String> violations = new ArrayList<>();
        Map<String, List<String>> archive = Archive.topicIds(admin, TOPICS.dialog());
        Map<String, List<String>> files = Archive.fileIds(workspace);
        Map<String, String> diaries = Archive.diaryText(workspace);
        StringBuilder deadLetters = new StringBuilder();
        Archive.readAll(
                admin, TOPICS.dlq(), record -> deadLetters.append(new String(record.value(), StandardCharsets.UTF_8)));
        long acceptedCount = 0;
        long lost = 0;
        long duplicated = 0;
        long outOfOrder = 0;
        long archivedCount = 0;
        long undiarised = 0;
        long deadLettered = 0;
        long fileMismatches = 0;
        for (Session session : sessions) {
            List<String> sent = List.copyOf(accepted.get(session.key()));
            acceptedCount += sent.size();
            JsonNode window = api.context(1, session.tenant(), session.id(), true);
            if (window == null) {
                window = api.context(2, session.tenant(), session.id(), true);
            }
            if (window == null) {
                violations.add(session.key() + ": context not readable");
                continue;
            }
            List<String> both = new ArrayList<>(archive.getOrDefault(session.key(), List.of()));
            archivedCount += both.size();
            window.path("messages")
                    .forEach(m -> both.add(m.path("message").path("id").asText()));
            Set<String> seen = new HashSet<>();
            List<String> once = new ArrayList<>();
            for (String id : both) {
                if (seen.add(id)) {
                    once.add(id);
                } else {
                    duplicated++;
                    violations.add(session.key() + ": " + id + " twice");
                }
            }
            Set<String> missing = new HashSet<>(sent);
            missing.removeAll(seen);
            lost += missing.size();
            if (!missing.isEmpty()) {
                violations.add(session.key() + ": " + missing.size() + " accepted messages missing, e.g. "
                        + missing.iterator().next());
            }
            Map<String, Integer> position = new HashMap<>();
            for (int i = 0; i < sent.size(); i++) {
                position.put(sent.get(i), i);
            }
            int last = -1;
            for (String id : once) {
                Integer at = position.get(id);
                if (at == null) {
                    continue;
                }
                if (at < last) {
                    outOfOrder++;
                    violations.add(session.key() + ": " + id + " out of order");
                }
                last = Math.max(last, at);
            }
            List<String> archived = archive.getOrDefault(session.key(), List.of());
            List<String> filed = files.getOrDefault(session.key(), List.of());
            if (!new HashSet<>(filed).equals(new HashSet<>(archived)) || filed.size() != archived.size()) {
                fileMismatches++;
                violations.add(session.key() + ": dialog files hold " + filed.size() + " messages, the topic "
                        + archived.size());
            }
            String diary = diaries.getOrDefault(session.tenant() + "/" + session.user(), "");
            long inNoDiary = 0;
            for (String id : archived) {
                String marker = "[soak:" + id + "]";
                if (!diary.contains(marker)) {
                    if (deadLetters.indexOf(marker) >= 0) {
                        deadLettered++;
                    } else {
                        inNoDiary++;
                    }
                }
            }
            undiarised += inNoDiary;
            if (inNoDiary > 0) {
                violations.add(session.key() + ": " + inNoDiary + " archived messages in no diary and no dead letter");
            }
            if (largestWindow.getOrDefault(session.key(), 0L) > MAX_INPUT) {
                violations.add(
                        session.key() + ": a served context reached " + largestWindow.get(session.key()) + " tokens");
            }
        }
        long memoriesMissing = 0;
        for (Memory memory : memories) {
            if (!listed(api, memory) || !found(api, memory)) {
                memoriesMissing++;
                violations.add(memory.session().tenant() + ": memory " + memory.id() + " (" + memory.word()
                        + ") not listed or not found");
            }
        }
        long windowMax =
                largestWindow.values().stream().mapToLong(Long::longValue).max().orElse(0);
        return new Tally(
                acceptedCount,
                lost,
                duplicated,
                outOfOrder,
                archivedCount,
                undiarised,
                deadLettered,
                fileMismatches,
                memoriesMissing,
                windowMax,
                violations);
    }

    private static boolean listed(ClusterApi api, Memory memory) {
        JsonNode answer = api.get(
                memory.session().tenant(), "/v1/memories/" + URLEncoder.encode(memory.id(), StandardCharsets.UTF_8));
        return answer != null && memory.id().equals(answer.path("id").asText());
    }

    private static boolean found(ClusterApi api, Memory memory) {
        ObjectNode query =
                Json.MAPPER.createObjectNode().put("query", memory.word()).put("k", 10);
        query.putArray("users").add(memory.session().user());
        for (int instance = 1; instance <= api.instances(); instance++) {
            try {
                HttpResponse<String> response =
                        api.post(instance, memory.session().tenant(), "/v1/search", query.toString());
                if (response.statusCode() == 200) {
                    for (JsonNode hit : Json.MAPPER.readTree(response.body()).path("hits")) {
                        if (memory.id().equals(hit.path("id").asText())) {
                            return true;
                        }
                    }
                    return false;
                }
            } catch (IOException e) {
                // the other instance
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
