package io.reme.api.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.reme.api.ApiException;
import io.reme.api.BodyBinder;
import io.reme.api.Caller;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.cluster.Reply;
import io.reme.api.context.ContextQueries;
import io.reme.api.context.MessageIngest;
import io.reme.api.diary.DiaryQueries;
import io.reme.api.diary.DiarySave;
import io.reme.api.memory.MemoryCreate;
import io.reme.api.memory.MemoryInput;
import io.reme.api.memory.MemoryListRequest;
import io.reme.api.memory.MemoryQueries;
import io.reme.api.memory.SearchQueries;
import io.reme.api.memory.SearchRequest;
import io.reme.api.tenant.TenantQuotas;
import io.reme.json.Json;
import io.reme.prometheus.PrometheusMetrics;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP tools and resources: each tool binds its arguments to a request record, the matching HTTP
 * route's own or one of {@link ToolArguments} (whose input schema {@link ToolSchema} generates), and
 * calls the same service with the connection's {@link Caller} ({@link SearchQueries}, {@link
 * MemoryQueries}, {@link ContextQueries}, {@link MessageIngest}, {@link DiaryQueries}). A tool answers the route's JSON as structured content and as text; a failure
 * is a tool error ({@code isError}, the SDK's convention for failures a model may correct) carrying the
 * API's {@code {"error":{"code","message","status"}}}. Reading a resource that fails is a JSON-RPC
 * error (resource not found for a 404) with the same code and message in its data.
 */
public final class McpTools {
    /** The key of the authenticated {@code Caller} in a call's transport context, which the endpoint puts there. */
    public static final String CALLER = "reme.caller";

    private static final Logger LOG = LoggerFactory.getLogger(McpTools.class);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final String MEMORY_URI = "reme://memory/{user}";
    static final String DIARY_URI = "reme://diary/{user}/{date}";
    private static final Pattern MEMORY_PATTERN = Pattern.compile("reme://memory/([^/]+)");
    private static final Pattern DIARY_PATTERN = Pattern.compile("reme://diary/([^/]+)/([^/]+)");

    private final SearchQueries searches;
    private final MemoryQueries memories;
    private final ContextQueries contexts;
    private final MessageIngest ingest;
    private final DiaryQueries diaries;
    private final PrometheusMetrics metrics;
    private final TenantQuotas quotas;

    /**
     * @param quotas the tenants' quotas {@code append_messages} counts against, one message per envelope
     *     as {@code POST /v1/messages} does (every MCP request already took one request at the HTTP
     *     layer); null for none
     */
    public McpTools(
            SearchQueries searches,
            MemoryQueries memories,
            ContextQueries contexts,
            MessageIngest ingest,
            DiaryQueries diaries,
            PrometheusMetrics metrics,
            TenantQuotas quotas) {
        this.searches = searches;
        this.memories = memories;
        this.contexts = contexts;
        this.ingest = ingest;
        this.diaries = diaries;
        this.metrics = metrics;
        this.quotas = quotas;
    }

    /** The caller of the connection's key, as the transport's context holds it; 401 without one. */
    static Caller callerOf(McpTransportContext context) {
        Object caller = context == null ? null : context.get(CALLER);
        if (caller == null) {
            throw ApiException.unauthorized();
        }
        return (Caller) caller;
    }

    /** A tool's work: the caller and the arguments in, the route's answer (a JSON object) out. */
    @FunctionalInterface
    interface Work {
        Object run(Caller caller, ObjectNode arguments);
    }

    public List<SyncToolSpecification> tools() {
        List<SyncToolSpecification> tools = List.of(
                tool(
                        "search_memory",
                        "Hybrid search (BM25 + vectors) of the tenant's memories: hits with id, type, text, score,"
                                + " user, times and source metadata, best first.",
                        ToolArguments.Search.class,
                        this::search),
                tool(
                        "add_memory",
                        "Add a personal, procedural or tool memory; answers its id and version (visible: false while"
                                + " the index has not caught up yet).",
                        MemoryCreate.class,
                        (caller, args) -> memories.create(caller, args)),
                tool(
                        "update_memory",
                        "Change a memory's content by id; give the version you read to fail (version_conflict)"
                                + " instead of overwriting a newer one. Answers the new version.",
                        ToolArguments.Update.class,
                        (caller, args) -> {
                            ToolArguments.Update update =
                                    BodyBinder.bind(args, ToolArguments.Update.class, MemoryCreate.INVALID);
                            return memories.update(caller, MemoryInput.memoryId(orEmpty(update.id())), update.body());
                        }),
                tool("delete_memory", "Delete a memory by id.", ToolArguments.Id.class, (caller, args) -> {
                    ToolArguments.Id memory = BodyBinder.bind(args, ToolArguments.Id.class, MemoryCreate.INVALID);
                    return memories.delete(caller, MemoryInput.memoryId(orEmpty(memory.id())));
                }),
                tool(
                        "list_memories",
                        "List memories with filters, sorted, a page at a time, as GET /v1/memories: pass nextCursor"
                                + " back as cursor (same sort and order) for the next page.",
                        MemoryListRequest.class,
                        (caller, args) -> memories.list(caller, MemoryListRequest.of(args))),
                tool(
                        "get_context",
                        "A session's context ready to send to a model: by default the OpenAI chat-completions"
                                + " messages (the summary first as a system message) with the token totals;"
                                + " format anthropic gives the system text apart and content blocks, full the whole"
                                + " view with compaction state.",
                        ToolArguments.Context.class,
                        this::context),
                tool(
                        "append_messages",
                        "Post messages to a session, as POST /v1/messages: each in the OpenAI chat shape (role,"
                                + " content, tool_calls, tool_call_id) or with content blocks; session and user are"
                                + " filled in from the arguments. Answers the records written.",
                        ToolArguments.Append.class,
                        this::append),
                tool(
                        "read_diary",
                        "A user's diary of a conversation date, or without a date the user's long-term memory"
                                + " (MEMORY.md): path, content, version, author and time.",
                        ToolArguments.Diary.class,
                        (caller, args) -> {
                            ToolArguments.Diary diary =
                                    BodyBinder.bind(args, ToolArguments.Diary.class, DiarySave.INVALID);
                            return document(caller, orEmpty(diary.user()), diary.document());
                        }));
        metrics.mcpTools(tools.stream().map(spec -> spec.tool().name()).toList());
        return tools;
    }

    public List<SyncResourceTemplateSpecification> resourceTemplates() {
        return List.of(
                new SyncResourceTemplateSpecification(
                        McpSchema.ResourceTemplate.builder(MEMORY_URI, "MEMORY.md")
                                .description("A user's long-term memory, MEMORY.md")
                                .mimeType("text/markdown")
                                .build(),
                        (exchange, request) -> readResource(exchange, request.uri())),
                new SyncResourceTemplateSpecification(
                        McpSchema.ResourceTemplate.builder(DIARY_URI, "diary")
                                .description("A user's diary of one conversation date (YYYY-MM-DD)")
                                .mimeType("text/markdown")
                                .build(),
                        (exchange, request) -> readResource(exchange, request.uri())));
    }

    private McpSchema.ReadResourceResult readResource(McpSyncServerExchange exchange, String uri) {
        try {
            Caller caller = callerOf(exchange.transportContext());
            Matcher memory = MEMORY_PATTERN.matcher(uri);
            Matcher diary = DIARY_PATTERN.matcher(uri);
            JsonNode document;
            if (memory.matches()) {
                document = tree(document(caller, memory.group(1), "MEMORY"));
            } else if (diary.matches()) {
                document = tree(document(caller, diary.group(1), diary.group(2)));
            } else {
                throw new ApiException(404, "document_not_found", "no resource " + uri);
            }
            return McpSchema.ReadResourceResult.builder(List.of(McpSchema.TextResourceContents.builder(
                                    uri, document.path("content").asText())
                            .mimeType("text/markdown")
                            .build()))
                    .build();
        } catch (ApiException e) {
            int code = e.status() == 404
                    ? McpSchema.ErrorCodes.RESOURCE_NOT_FOUND
                    : e.status() < 500 ? McpSchema.ErrorCodes.INVALID_PARAMS : McpSchema.ErrorCodes.INTERNAL_ERROR;
            throw McpError.builder(code).message(e.getMessage()).data(error(e)).build();
        }
    }

    private Object search(Caller caller, ObjectNode args) {
        SearchRequest request = BodyBinder.bind(args, ToolArguments.Search.class, SearchRequest.INVALID)
                .request();
        long start = System.nanoTime();
        SearchQueries.Answer answer = searches.search(caller, request);
        metrics.search(System.nanoTime() - start, answer.partial());
        return answer;
    }

    private Object context(Caller caller, ObjectNode args) {
        ToolArguments.Context context = BodyBinder.bind(args, ToolArguments.Context.class, "invalid_query");
        return relayed(
                contexts.context(caller, orEmpty(context.session()), context.request(), OwnerRouting.Hop.CLIENT));
    }

    Object append(Caller caller, ObjectNode args) {
        ToolArguments.Append append = BodyBinder.bind(args, ToolArguments.Append.class, "invalid_messages");
        List<JsonNode> messages = append.messages();
        if (messages == null || messages.isEmpty()) {
            throw new ApiException(400, "invalid_messages", "'messages' must be a non-empty array of messages");
        }
        ArrayNode envelopes = NODES.arrayNode();
        for (JsonNode message : messages) {
            if (message == null || !message.isObject()) {
                throw new ApiException(400, "invalid_messages", "each message must be a JSON object");
            }
            ObjectNode envelope = ((ObjectNode) message).deepCopy();
            // The arguments name the session and user once; a message may still name them itself.
            if (!envelope.has("session")) {
                envelope.put("session", append.session());
            }
            if (!envelope.has("user")) {
                envelope.put("user", append.user());
            }
            envelopes.add(envelope);
        }
        if (quotas != null) {
            quotas.admitMessages(caller.tenant(), Math.max(1, envelopes.size()));
        }
        return ingest.ingest(caller.tenant(), envelopes);
    }

    private Object document(Caller caller, String user, String name) {
        return relayed(diaries.document(caller, user, name, false));
    }

    /** A relayed or local answer: its JSON when it is a success, the API's error otherwise. */
    private static Object relayed(Reply answer) {
        JsonNode body = tree(answer.body());
        if (answer.status() >= 400) {
            JsonNode error = body.path("error");
            throw new ApiException(
                    answer.status(),
                    error.path("code").asText("unavailable"),
                    error.path("message").asText("the owning instance answered " + answer.status()));
        }
        return body;
    }

    private static JsonNode tree(Object value) {
        try {
            return value instanceof byte[] bytes ? Json.MAPPER.readTree(bytes) : Json.MAPPER.valueToTree(value);
        } catch (IOException e) {
            throw ApiException.unavailable("an instance sent an unreadable answer");
        }
    }

    private SyncToolSpecification tool(String name, String description, Class<? extends Record> arguments, Work work) {
        McpSchema.Tool tool = McpSchema.Tool.builder(name, map(ToolSchema.of(arguments)))
                .description(description)
                .build();
        BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler =
                (exchange, request) -> {
                    McpSchema.CallToolResult result = call(name, exchange.transportContext(), request, work);
                    metrics.mcpToolCall(name, Boolean.TRUE.equals(result.isError()));
                    return result;
                };
        return SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
    }

    /**
     * Runs one tool call for the caller of {@code context} (the HTTP request carrying it was admitted
     * against the tenant's request quota before the transport saw it).
     */
    McpSchema.CallToolResult call(
            String name, McpTransportContext context, McpSchema.CallToolRequest request, Work work) {
        try {
            Caller caller = callerOf(context);
            ObjectNode args =
                    request.arguments() == null ? NODES.objectNode() : Json.MAPPER.valueToTree(request.arguments());
            Object answer = work.run(caller, args);
            return McpSchema.CallToolResult.builder()
                    .structuredContent(map(tree(answer)))
                    .addTextContent(Json.MAPPER.writeValueAsString(answer))
                    .isError(false)
                    .build();
        } catch (ApiException e) {
            LOG.debug("mcp tool failed tool={} status={} code={}", name, e.status(), e.code());
            return errorResult(e);
        } catch (IOException e) {
            return errorResult(ApiException.internal());
        } catch (RuntimeException e) {
            LOG.error("mcp tool failed tool={}", name, e);
            return errorResult(ApiException.internal());
        }
    }

    /** The API's error body for {@code e}, with the HTTP status the route would have answered. */
    static Map<String, Object> error(ApiException e) {
        if (e.retryAfterSeconds() != null) {
            return Map.of(
                    "error",
                    Map.of(
                            "code",
                            e.code(),
                            "message",
                            e.getMessage(),
                            "status",
                            e.status(),
                            "retryAfter",
                            e.retryAfterSeconds()));
        }
        return Map.of("error", Map.of("code", e.code(), "message", e.getMessage(), "status", e.status()));
    }

    private static McpSchema.CallToolResult errorResult(ApiException e) {
        Map<String, Object> body = error(e);
        String text;
        try {
            text = Json.MAPPER.writeValueAsString(body);
        } catch (IOException never) {
            text = e.getMessage();
        }
        return McpSchema.CallToolResult.builder()
                .structuredContent(body)
                .addTextContent(text)
                .isError(true)
                .build();
    }

    private static Map<String, Object> map(JsonNode node) {
        if (!node.isObject()) {
            ObjectNode wrapped = NODES.objectNode();
            wrapped.set("result", node);
            node = wrapped;
        }
        return Json.MAPPER.convertValue(node, new TypeReference<Map<String, Object>>() {});
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
