package io.reme.provider;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import io.reme.search.MemoryType;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The words of the memory extraction and merge requests to a chat model, and the reading of its
 * JSON answers. An answer that is not the JSON asked for is a retryable {@link LlmException}.
 */
final class MemoryPrompts {
    private MemoryPrompts() {}

    static final String EXTRACT_SYSTEM = """
            You maintain the long-term memory of an AI agent. From a conversation you pick out what is \
            worth remembering for future conversations, and nothing else. Never invent anything that is \
            not in the conversation. Answer with JSON only.""";

    static final String MERGE_SYSTEM = """
            You keep an AI agent's long-term memory free of duplicates and up to date. Given one new \
            candidate memory and the most similar existing memories, decide: ADD when the candidate is \
            new; UPDATE when it restates, refines or contradicts an existing memory (write the memory as \
            it should read now; a contradiction replaces the old fact); NOOP when it is already known. \
            Answer with JSON only.""";

    private static final Map<MemoryType, String> KINDS = Map.of(
            MemoryType.PERSONAL, """
                    personal memories about the user %s: stable preferences, habits, facts about them and \
                    their circumstances, each one statement written with their name, not "the user". The \
                    target is the user's name.""",
            MemoryType.PROCEDURAL, """
                    procedural memories: for each task the agent worked on, how it was done, what failed and \
                    why, and what finally worked, so the next attempt goes right at once. The target is a \
                    short lower-case name of the task.""",
            MemoryType.TOOL, """
                    tool memories: for each tool the agent called, when it helped, which arguments worked, \
                    and which calls failed with what error. The target is the tool's name.""");

    static String extract(ExtractTask task, String transcript) {
        return "# Conversation\n\nUser: " + task.user() + "; times are UTC.\n\n" + transcript + "\n\n# Task\n\n"
                + "Extract "
                + String.format(KINDS.get(task.type()), task.user()).strip() + "\n\n"
                + "Answer with {\"memories\": [{\"target\": \"...\", \"content\": \"...\", \"about\": \"...\"}]} "
                + "where \"about\" names in two or three words what a personal memory is about (leave it out for "
                + "the other kinds). Write the content in " + OpenAiLlmClient.languageName(task.language())
                + ". Answer {\"memories\": []} when there is nothing of this kind.";
    }

    static String merge(MergeTask task) throws LlmException {
        Map<String, Object> candidate = new LinkedHashMap<>();
        candidate.put("type", task.candidate().type().name().toLowerCase(Locale.ROOT));
        candidate.put("target", task.candidate().target());
        candidate.put("content", task.candidate().content());
        List<Map<String, Object>> existing = new ArrayList<>();
        for (MergeTask.Neighbour n : task.neighbours()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", n.memory().id());
            m.put("content", n.memory().text());
            if (n.memory().updatedAt() != null) {
                m.put("updatedAt", n.memory().updatedAt().toString());
            }
            existing.add(m);
        }
        try {
            return "# Candidate\n\n" + Json.MAPPER.writeValueAsString(candidate) + "\n\n# Existing memories\n\n"
                    + Json.MAPPER.writeValueAsString(existing) + "\n\n# Task\n\n"
                    + "Answer with {\"action\": \"ADD\" | \"UPDATE\" | \"NOOP\", \"id\": \"<the existing memory's id, "
                    + "for UPDATE>\", \"content\": \"<the memory as it should read, for ADD and UPDATE>\"}.";
        } catch (IOException e) {
            throw new LlmException("cannot write the merge prompt: " + e.getMessage(), false, e);
        }
    }

    static List<MemoryCandidate> candidates(String answer, ExtractTask task, Instant time) throws LlmException {
        JsonNode memories = json(answer).path("memories");
        if (!memories.isArray()) {
            throw new LlmException("the extraction answer has no \"memories\" array", true, null);
        }
        List<MemoryCandidate> found = new ArrayList<>();
        for (JsonNode m : memories) {
            String content = m.path("content").asText("").strip();
            String target = m.path("target").asText("").strip();
            if (task.type() == MemoryType.PERSONAL) {
                // The extractor works for one user: personal memories are about them whatever the model says.
                target = task.user();
            }
            if (content.isEmpty() || target.isEmpty() || target.length() > 200) {
                continue;
            }
            Map<String, String> metadata = new HashMap<>();
            String about = m.path("about").asText("").strip().toLowerCase(Locale.ROOT);
            if (!about.isEmpty() && about.length() <= 80) {
                metadata.put(MemoryCandidate.ABOUT, about);
            }
            found.add(new MemoryCandidate(task.type(), target, content, time, metadata));
        }
        return found;
    }

    static MergeDecision decision(String answer, MergeTask task) throws LlmException {
        JsonNode node = json(answer);
        String action = node.path("action").asText("").strip().toUpperCase(Locale.ROOT);
        String content = node.path("content").asText("").strip();
        try {
            return switch (action) {
                case "ADD" ->
                    MergeDecision.add(content.isEmpty() ? task.candidate().content() : content);
                case "NOOP" -> MergeDecision.noop();
                case "UPDATE" -> {
                    String id = node.path("id").asText("");
                    if (task.neighbours().stream()
                            .noneMatch(n -> n.memory().id().equals(id))) {
                        throw new LlmException(
                                "the merge answer updates \"" + id + "\", which is not one of the existing memories",
                                true,
                                null);
                    }
                    yield MergeDecision.update(
                            id, content.isEmpty() ? task.candidate().content() : content);
                }
                default ->
                    throw new LlmException(
                            "the merge answer's action is not ADD, UPDATE or NOOP: \"" + action + "\"", true, null);
            };
        } catch (IllegalArgumentException e) {
            throw new LlmException("the merge answer is incomplete: " + e.getMessage(), true, e);
        }
    }

    /** The JSON object in the answer (a fence or words around it are ignored). */
    private static JsonNode json(String answer) throws LlmException {
        int start = answer.indexOf('{');
        int end = answer.lastIndexOf('}');
        if (start < 0 || end < start) {
            throw new LlmException("the answer is not JSON", true, null);
        }
        try {
            return Json.MAPPER.readTree(answer.substring(start, end + 1));
        } catch (IOException e) {
            throw new LlmException("the answer is not valid JSON: " + e.getMessage(), true, e);
        }
    }
}
