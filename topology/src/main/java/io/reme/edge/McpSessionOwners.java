package io.reme.edge;

import io.reme.api.tenant.ApiKeyHash;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds each MCP session to the API key that opened it. The transport knows a session only by its id,
 * which the client sends in clear on every request; without this, anyone holding another tenant's id and
 * any valid key could attach to its event stream ({@code GET}) or end it ({@code DELETE}). A request naming
 * a session opened with another key, or one this instance never saw opened, gets the transport's own answer
 * for an unknown session (a bare 404), so a stranger learns nothing about whether the id exists.
 *
 * <p>Bindings are kept until the session is deleted or unused for {@link #IDLE}; the transport's own sweep
 * ends idle sessions sooner, and a client whose binding has lapsed opens a new session, as MCP clients do on
 * a 404.
 */
final class McpSessionOwners implements Filter {
    static final String SESSION_HEADER = "Mcp-Session-Id";
    /** Longer than the transport's idle sweep (30 minutes), so a binding never lapses before its session. */
    static final Duration IDLE = Duration.ofHours(1);

    private static final Logger LOG = LoggerFactory.getLogger(McpSessionOwners.class);
    private static final long PRUNE_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

    private final Map<String, Binding> bindings = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;
    private volatile long lastPruneNanos;

    /** The key's digest, and when the session was last used (monotonic nanoseconds). */
    private record Binding(byte[] keyDigest, long usedNanos) {
        boolean heldBy(byte[] digest) {
            return MessageDigest.isEqual(keyDigest, digest);
        }
    }

    McpSessionOwners(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.lastPruneNanos = nanoTime.getAsLong();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse answer = (HttpServletResponse) response;
        // The API admitted the request by this header before the transport saw it: it is present and valid.
        String authorization = http.getHeader("Authorization");
        byte[] key = ApiKeyHash.digest(authorization == null ? "" : authorization);
        String session = http.getHeader(SESSION_HEADER);
        if (session == null) {
            // Only an initialize opens a session: the transport then names it in this response header.
            chain.doFilter(request, new HttpServletResponseWrapper(answer) {
                @Override
                public void setHeader(String name, String value) {
                    bindIfSession(name, value, key);
                    super.setHeader(name, value);
                }

                @Override
                public void addHeader(String name, String value) {
                    bindIfSession(name, value, key);
                    super.addHeader(name, value);
                }
            });
            return;
        }
        long now = nanoTime.getAsLong();
        Binding binding = bindings.computeIfPresent(
                session, (id, held) -> held.heldBy(key) ? new Binding(held.keyDigest(), now) : held);
        if (binding == null || !binding.heldBy(key)) {
            LOG.warn(
                    "mcp session refused method={} reason={}",
                    http.getMethod(),
                    binding == null ? "not opened here or expired" : "opened with another key");
            answer.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        chain.doFilter(request, response);
        if ("DELETE".equals(http.getMethod()) && answer.getStatus() < 300) {
            bindings.remove(session);
        }
    }

    private void bindIfSession(String name, String value, byte[] key) {
        if (SESSION_HEADER.equalsIgnoreCase(name) && value != null) {
            long now = nanoTime.getAsLong();
            bindings.put(value, new Binding(key, now));
            pruneIdle(now);
        }
    }

    private void pruneIdle(long now) {
        if (now - lastPruneNanos < PRUNE_EVERY_NANOS) {
            return;
        }
        lastPruneNanos = now;
        long idle = IDLE.toNanos();
        bindings.values().removeIf(binding -> now - binding.usedNanos() > idle);
    }

    /** Sessions bound now (for tests and logs). */
    int size() {
        return bindings.size();
    }
}
