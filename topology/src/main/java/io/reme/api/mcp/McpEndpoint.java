package io.reme.api.mcp;

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
import io.reme.api.ApiServer;
import io.reme.api.Authenticator;
import io.reme.api.Caller;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;

/**
 * The MCP server at {@code /mcp}: the official MCP Java SDK's Streamable-HTTP servlet transport in a
 * Jetty servlet context, with the tools and resources of {@link McpTools}. {@link ApiServer} routes
 * {@code /mcp} here after checking the bearer key; the transport puts the key's {@link Caller} into each
 * request's {@link McpTransportContext}, which is all a tool sees
 * of the caller; {@link McpSessionOwners} holds each session to the key that opened it. Lifecycle: built
 * with the API, its handler started and stopped with the web server, {@link #close} once.
 */
public final class McpEndpoint implements AutoCloseable {
    static final String PATH = "/mcp";
    /** The transport-context key of the request's {@link Caller}. */
    static final String CALLER = "reme.caller";

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
    static McpTransportContext callerContext(Authenticator keys, String authorization) {
        return callerOf(keys, authorization)
                .map(caller -> McpTransportContext.create(Map.of(CALLER, caller)))
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
     * exception object: the SDK 2.2 transport writes the exception, stack trace and all, to the client.
     */
    private record ErrorsAsJsonRpc(McpJsonMapper delegate) implements McpJsonMapper {
        private Object wire(Object value) {
            if (!(value instanceof McpError error)) {
                return value;
            }
            // The request's id is not known here (the SDK's response record refuses a null one).
            Map<String, Object> response = new LinkedHashMap<>();
            response.put("jsonrpc", McpSchema.JSONRPC_VERSION);
            response.put("id", null);
            response.put("error", error.getJsonRpcError());
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

    @Override
    public void close() {
        server.close();
    }
}
