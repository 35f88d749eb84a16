package io.reme.api.mcp;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.Arg;
import io.reme.api.context.ContextQueries;
import io.reme.api.memory.MemoryUpdate;
import io.reme.api.memory.SearchRequest;
import io.reme.search.SearchQuery;
import java.util.List;

/**
 * The MCP tools' arguments where they are not a route's request record as they stand (a path
 * parameter among them, or a name of their own): each tool binds its arguments to one of these with
 * {@code BodyBinder}, as a route binds its body, and its input schema is generated from the same
 * record ({@link ToolSchema}). {@code add_memory} and {@code list_memories} bind the routes' own
 * {@code MemoryCreate} and {@code MemoryListRequest}.
 */
final class ToolArguments {
    private ToolArguments() {}

    /** {@code search_memory}: {@code POST /v1/search}'s body with one user instead of a list. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Search(
            @Arg(value = "what to look for", required = true)
            String query,

            @Arg("only memories of this user") String user,

            @Arg(
                    value = "only these kinds (all by default)",
                    allowed = {"personal", "procedural", "tool", "diary_chunk", "dialog_chunk"})
            @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            List<String> types,

            @Arg(value = "how many hits (default " + SearchQuery.DEFAULT_K + ")", min = 1, max = SearchQuery.MAX_K)
            Integer k,

            @Arg(value = "only memories of conversations at or after this instant", instant = true)
            String from,

            @Arg(value = "only memories of conversations before this instant", instant = true)
            String to,

            Double minScore,
            String fusion,

            @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            List<String> sessions,

            @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            List<String> targets) {
        /** The route's request, checked as the route checks it. */
        SearchRequest request() {
            SearchRequest request = new SearchRequest(
                    query,
                    k,
                    minScore,
                    fusion,
                    types,
                    user == null ? null : List.of(user),
                    sessions,
                    targets,
                    from,
                    to,
                    null);
            request.validate();
            return request;
        }
    }

    /** {@code update_memory}: {@code PUT /v1/memories/{id}}'s path and body. */
    record Update(
            @Arg(value = "the memory's id", required = true) String id,
            @Arg(value = "the new content", required = true) String content,

            @Arg(value = "the version you read", min = 1, max = Integer.MAX_VALUE)
            Long version,

            String target,
            String conversationTime,
            JsonNode metadata) {
        MemoryUpdate body() {
            MemoryUpdate body = new MemoryUpdate(version, content, target, conversationTime, metadata);
            body.validate();
            return body;
        }
    }

    /** {@code delete_memory}: {@code DELETE /v1/memories/{id}}'s path. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Id(
            @Arg(value = "the memory's id", required = true) String id) {}

    /** {@code get_context}: {@code GET /v1/sessions/{session}/context}'s path and query. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Context(
            @Arg(value = "the session id", required = true) String session,

            @Arg(
                    value = "default openai",
                    allowed = {"openai", "anthropic", "full"})
            String format,

            @Arg(
                    value = "served (default): what fits the model's input; all: every live message",
                    allowed = {"served", "all"})
            String window) {
        /** The route's request: the OpenAI messages unless another format (or {@code full}, the whole view) is asked. */
        ContextQueries.Request request() {
            String shape = format == null ? "openai" : format;
            return ContextQueries.Request.of(window, shape.equals("full") ? null : shape);
        }
    }

    /** {@code append_messages}: {@code POST /v1/messages}' envelopes, with the session and user named once. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Append(
            @Arg(value = "the session id", required = true) String session,

            @Arg(value = "the user the session is with", required = true)
            String user,

            @Arg(value = "the messages, oldest first", required = true, items = Message.class)
            List<JsonNode> messages) {}

    /**
     * One message of {@link Append}, as the schema describes it; the messages themselves stay JSON, so
     * that anything an envelope may carry reaches the ingest.
     */
    record Message(
            @Arg(
                    value = "who spoke",
                    required = true,
                    allowed = {"user", "assistant", "system", "tool"})
            String role,

            @Arg("a string, or content parts/blocks (text, tool_use, tool_result, image)")
            JsonNode content,

            @JsonProperty("tool_calls") @Arg(value = "OpenAI tool calls", type = "array")
            JsonNode toolCalls,

            @JsonProperty("tool_call_id") @Arg("for role tool: the call answered")
            String toolCallId,

            @Arg("the speaker's or tool's name") String name,
            @Arg("the message id (a UUID by default)") String id,

            @Arg(value = "when it was said (now by default)", instant = true)
            String time) {}

    /** {@code read_diary}: {@code GET /v1/diary/{user}/{document}}'s path, MEMORY.md without a date. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Diary(
            @Arg(value = "the user", required = true) String user,
            @Arg("YYYY-MM-DD; left out: MEMORY.md") String date) {
        String document() {
            return date == null ? "MEMORY" : date;
        }
    }
}
