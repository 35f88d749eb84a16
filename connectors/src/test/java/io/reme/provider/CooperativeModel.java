package io.reme.provider;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.summary.SummaryFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A scripted stand-in for a well-behaved model, for {@link OpenAiTestServer}: it answers summary
 * requests (no tools) with a well-formed summary built from the prompt, and diary requests (tools)
 * by reading the day's document, then writing it (if empty) or appending a bullet with an edit,
 * then replying with a sentence.
 */
public final class CooperativeModel {
    private static final Pattern TRANSCRIPT_HEADER = Pattern.compile("^\\[\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}] .*:$");

    private CooperativeModel() {}

    public static OpenAiTestServer.Reply answer(JsonNode request) {
        OpenAiTestServer.Request wrapped = new OpenAiTestServer.Request(OpenAiTestServer.CHAT_PATH, null, request);
        return wrapped.hasTools() ? diary(wrapped) : OpenAiTestServer.text(summary(wrapped));
    }

    private static String summary(OpenAiTestServer.Request request) {
        String prompt = request.content("user");
        List<String> context = new ArrayList<>();
        String previous = section(prompt, "# Previous summary");
        if (previous != null) {
            String previousContext = SummaryFormat.section(previous, "## ", "Critical Context");
            if (previousContext != null) {
                previousContext
                        .lines()
                        .filter(l -> l.startsWith("- "))
                        .map(l -> l.substring(2))
                        .forEach(context::add);
            }
        }
        for (String line : plainLines(prompt)) {
            context.add(line.length() > 200 ? line.substring(0, 200) : line);
        }
        List<String> lines = plainLines(prompt);
        StringBuilder out = new StringBuilder();
        out.append("## Goal\n- ")
                .append(lines.isEmpty() ? "(none)" : lines.get(0))
                .append("\n\n");
        out.append("## Constraints & Preferences\n(none)\n\n");
        out.append("## Progress\n### Done\n(none)\n\n### In Progress\n(none)\n\n### Blocked\n(none)\n\n");
        out.append("## Key Decisions\n(none)\n\n");
        out.append("## Next Steps\n(none)\n\n");
        out.append("## Critical Context\n");
        context.forEach(line -> out.append("- ").append(line).append('\n'));
        if (context.isEmpty()) {
            out.append("(none)\n");
        }
        return out.toString();
    }

    /** Transcript lines that are the conversation's own text (tool calls and results too). */
    private static List<String> plainLines(String prompt) {
        List<String> lines = new ArrayList<>();
        boolean inConversation = false;
        for (String line : prompt.split("\n")) {
            if (line.startsWith("# ")) {
                inConversation = line.equals("# Conversation");
            } else if (inConversation
                    && !line.isBlank()
                    && !TRANSCRIPT_HEADER.matcher(line).matches()
                    && !line.startsWith("User ")
                    && !line.startsWith("Times are UTC")) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** The text under a top-level {@code #} heading of the prompt, or null. */
    private static String section(String prompt, String heading) {
        int start = prompt.indexOf("\n" + heading + "\n");
        if (start < 0) {
            return null;
        }
        int bodyStart = start + heading.length() + 2;
        int end = prompt.indexOf("\n# ", bodyStart);
        return prompt.substring(bodyStart, end < 0 ? prompt.length() : end);
    }

    private static OpenAiTestServer.Reply diary(OpenAiTestServer.Request request) {
        String daily = request.body()
                .path("tools")
                .get(0)
                .path("function")
                .path("parameters")
                .path("properties")
                .path("document")
                .path("enum")
                .get(0)
                .asText();
        JsonNode last = request.last();
        if (!last.path("role").asText().equals("tool")) {
            return OpenAiTestServer.toolCalls(OpenAiTestServer.ToolCall.of("call_read", "read", "document", daily));
        }
        String answeredTool = toolNameOf(request, last.path("tool_call_id").asText());
        String result = last.path("content").asText();
        if (answeredTool.equals("read")) {
            String bullet = "- 14:04 " + decisionLine(request.content("user")) + "\n";
            if (result.contains("does not exist yet")) {
                String date = daily.substring("memory/".length(), daily.length() - ".md".length());
                return OpenAiTestServer.toolCalls(OpenAiTestServer.ToolCall.of(
                        "call_write", "write", "document", daily, "content", "# " + date + "\n\n" + bullet));
            }
            String newText = result + (result.endsWith("\n") ? "" : "\n") + bullet;
            return OpenAiTestServer.toolCalls(OpenAiTestServer.ToolCall.of(
                    "call_edit", "edit", "document", daily, "old_text", result, "new_text", newText));
        }
        return OpenAiTestServer.text(
                result.startsWith("Error")
                        ? "Could not update " + daily + ": " + result
                        : "Added the day's decision to " + daily + ".");
    }

    private static String toolNameOf(OpenAiTestServer.Request request, String callId) {
        for (JsonNode message : request.messages()) {
            for (JsonNode call : message.path("tool_calls")) {
                if (call.path("id").asText().equals(callId)) {
                    return call.path("function").path("name").asText();
                }
            }
        }
        throw new AssertionError("no tool call " + callId + " in the request");
    }

    private static String decisionLine(String prompt) {
        for (String line : plainLines(prompt)) {
            if (line.contains("Decision")) {
                return line;
            }
        }
        return "talked with the user";
    }
}
