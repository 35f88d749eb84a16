package io.reme.edge;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.mcp.McpTools;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP server at {@code /mcp}: the official MCP Java SDK's Streamable-HTTP servlet transport in a
 * Jetty servlet context, with the tools and resources of {@link McpTools}. {@code ApiServer} routes
 * {@code /mcp} here after checking the bearer key; the transport puts the key's {@link Caller} into each
 * request's {@link McpTransportContext}, which is all a tool sees
 * of the caller; {@link McpSessionOwners} holds each session to the key that opened it. Lifecycle: built
 * with the API, its handler started and stopped with the web server, {@link #close} once.
 */
public final class McpEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(McpEndpoint.class);
    static final String PATH = "/mcp";

    private final ServletContextHandler context;
    private final McpSyncServer server;

    public McpEndpoint(Authenticator keys, McpTools tools, int maxBodyBytes) {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint(PATH)
                .maxRequestSize(maxBodyBytes)
                .jsonMapper(new ErrorsAsJsonRpc(McpJsonDefaults.getMapper()))
                .contextExtractor(request -> callerContext(keys, request.getHeader("Authorization")))
                .build();
        this.server = McpServer.sync(transport)
                .serverInfo(
                        "reme-streams",
                        McpEndpoint.class.getPackage().getImplementationVersion() == null
                                ? "dev"
                                : McpEndpoint.class.getPackage().getImplementationVersion())
                .instructions("Memory for AI agents: search and write a tenant's memories, read a session's context"
                        + " ready to send to a model, append messages to a session, read a user's diary and MEMORY.md."
                        + " Everything is scoped to the tenant of the API key this connection was opened with.")
                .capabilities(McpSchema.ServerCapabilities.builder()
                        .tools(false)
                        .resources(false, false)
                        .build())
                .tools(tools.tools())
                .resourceTemplates(tools.resourceTemplates())
                // Tool arguments are checked by the same code as the HTTP API's bodies, so a bad argument gets
                // the API's code and message, not the schema validator's.
                .validateToolInputs(false)
                // Tools run on the request's thread (a virtual thread admitted by the API's gate), not on
                // Reactor's bounded-elastic pool.
                .immediateExecution(true)
                .build();
        this.context = new ServletContextHandler("/");
        ServletHolder holder = new ServletHolder("mcp", transport);
        // The transport answers requests as server-sent event streams on the servlet's async context.
        holder.setAsyncSupported(true);
        context.addServlet(holder, PATH);
        context.addFilter(
                new FilterHolder(new McpSessionOwners(System::nanoTime)), PATH, EnumSet.of(DispatcherType.REQUEST));
    }

    /** Whether a request path is the MCP endpoint's (anything under it too, which the servlet answers 404). */
    public static boolean serves(String path) {
        return path.equals(PATH) || path.startsWith(PATH + "/");
    }

    /** The servlet context to start and stop with the web server. */
    public Handler handler() {
        return context;
    }

    /**
     * The context a tool call runs with: the key's tenant, or nothing for a key that is not one (the API
     * refuses those before the transport sees them; a tool then answers 401 all the same).
     */
    public static McpTransportContext callerContext(Authenticator keys, String authorization) {
        return callerOf(keys, authorization)
                .map(caller -> McpTransportContext.create(Map.of(McpTools.CALLER, caller)))
                .orElse(McpTransportContext.EMPTY);
    }

    /**
     * The caller, by the API's authenticator (static keys, then issued ones); the request was admitted,
     * quota included, before the transport saw it.
     */
    private static Optional<Caller> callerOf(Authenticator keys, String authorization) {
        try {
            return Optional.of(keys.callerOf(authorization));
        } catch (ApiException refused) {
            return Optional.empty();
        }
    }

    /**
     * The SDK's mapper, except that an {@link McpError} the transport answers by itself (no session id,
     * an unknown session, a malformed message) is written as a JSON-RPC error response instead of as the
     * exception object (the SDK 2.2 transport writes the exception, stack trace and all, to the client), and
     * every JSON-RPC error says what was wrong in the protocol's terms ({@link #inOurWords}).
     */
    private record ErrorsAsJsonRpc(McpJsonMapper delegate) implements McpJsonMapper {
        private Object wire(Object value) {
            if (value instanceof McpSchema.JSONRPCResponse response && response.error() != null) {
                return new McpSchema.JSONRPCResponse(
                        response.jsonrpc(), response.id(), response.result(), inOurWords(response.error()));
            }
            if (!(value instanceof McpError error)) {
                return value;
            }
            // The request's id is not known here (the SDK's response record refuses a null one).
            Map<String, Object> response = new LinkedHashMap<>();
            response.put("jsonrpc", McpSchema.JSONRPC_VERSION);
            response.put("id", null);
            response.put("error", inOurWords(error.getJsonRpcError()));
            return response;
        }

        @Override
        public String writeValueAsString(Object value) throws IOException {
            return delegate.writeValueAsString(wire(value));
        }

        @Override
        public byte[] writeValueAsBytes(Object value) throws IOException {
            return delegate.writeValueAsBytes(wire(value));
        }

        @Override
        public <T> T readValue(String content, Class<T> type) throws IOException {
            return delegate.readValue(content, type);
        }

        @Override
        public <T> T readValue(byte[] content, Class<T> type) throws IOException {
            return delegate.readValue(content, type);
        }

        @Override
        public <T> T readValue(String content, TypeRef<T> type) throws IOException {
            return delegate.readValue(content, type);
        }

        @Override
        public <T> T readValue(byte[] content, TypeRef<T> type) throws IOException {
            return delegate.readValue(content, type);
        }

        @Override
        public <T> T convertValue(Object value, Class<T> type) {
            return delegate.convertValue(value, type);
        }

        @Override
        public <T> T convertValue(Object value, TypeRef<T> type) {
            return delegate.convertValue(value, type);
        }
    }

    /**
     * What a message names that is the server's business and not the client's: a Java or library class
     * ({@code tools.jackson.databind...}, {@code McpSchema$JSONRPCRequest}), an exception, a stack frame.
     */
    private static final Pattern IMPLEMENTATION =
            Pattern.compile("\\b(?:java|javax|jakarta|tools|com|org|io|reactor)\\.[a-z]|\\$[A-Z]|Exception|`");

    /**
     * The error with a message in the protocol's terms: as it is when its message names no class or library (the
     * tools' errors, whose data is the API's error object), else with what its code means and no data. The server
     * log keeps the SDK's message.
     */
    static McpSchema.JSONRPCResponse.JSONRPCError inOurWords(McpSchema.JSONRPCResponse.JSONRPCError error) {
        String message = error.message();
        if (message != null
                && !message.isBlank()
                && !IMPLEMENTATION.matcher(message).find()) {
            return error;
        }
        int code = error.code() == null ? McpSchema.ErrorCodes.INTERNAL_ERROR : error.code();
        LOG.debug("mcp error reworded code={} message={}", code, message);
        String ours = switch (code) {
            case McpSchema.ErrorCodes.PARSE_ERROR -> "the message is not valid JSON";
            case McpSchema.ErrorCodes.INVALID_REQUEST ->
                "the message is not a JSON-RPC 2.0 request, notification or response the server accepts";
            case McpSchema.ErrorCodes.METHOD_NOT_FOUND -> "no such method";
            case McpSchema.ErrorCodes.INVALID_PARAMS -> "the method's params are not valid";
            case McpSchema.ErrorCodes.INTERNAL_ERROR -> "internal error; see the server log";
            default -> "the request could not be served";
        };
        return new McpSchema.JSONRPCResponse.JSONRPCError(code, ours, null);
    }

    @Override
    public void close() {
        server.close();
    }
}
