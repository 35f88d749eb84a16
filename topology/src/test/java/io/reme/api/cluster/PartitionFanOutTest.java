package io.reme.api.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.api.ApiException;
import io.reme.api.Callers;
import io.reme.api.memory.SearchQueries;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/** What another instance's answer means to a fan-out: an error of its own is thrown, an absence is empty. */
class PartitionFanOutTest {

    private record Remote(int status, String body) {}

    @Test
    void anotherInstancesErrorIsAnErrorAndItsAbsenceIsEmpty() throws Exception {
        AtomicReference<Remote> next = new AtomicReference<>();
        AtomicInteger calls = new AtomicInteger();
        WebServer server = WebServer.bind("remote-test", "127.0.0.1", 0, HttpSettings.DEFAULT);
        try {
            server.start(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    calls.incrementAndGet();
                    response.setStatus(next.get().status());
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                    response.write(true, ByteBuffer.wrap(next.get().body().getBytes(StandardCharsets.UTF_8)), callback);
                    return true;
                }
            });
            HostInfo remote = new HostInfo("127.0.0.1", server.port());
            PartitionFanOut fanOut = new PartitionFanOut(
                    new NotStartedStreams(), new Instance(new HostInfo("127.0.0.1", 1), null), "reme.memories");

            next.set(new Remote(200, "{\"hits\":[],\"answered\":[3]}"));
            Optional<SearchQueries.PartitionHits> ok =
                    fanOut.post(remote, "/x", Map.of(), Callers.ACME, SearchQueries.PartitionHits.class);
            assertEquals(Set.of(3), ok.orElseThrow().answered());

            next.set(new Remote(500, "{\"error\":{\"code\":\"search_failed\",\"message\":\"TooManyClauses\"}}"));
            ApiException failed = assertThrows(
                    ApiException.class,
                    () -> fanOut.post(remote, "/x", Map.of(), Callers.ACME, SearchQueries.PartitionHits.class));
            assertEquals(500, failed.status());
            assertEquals("search_failed", failed.code());
            assertTrue(failed.getMessage().contains("TooManyClauses"), failed::getMessage);

            next.set(new Remote(400, "{\"error\":{\"code\":\"query_too_long\",\"message\":\"too long\"}}"));
            ApiException refused = assertThrows(
                    ApiException.class,
                    () -> fanOut.post(remote, "/x", Map.of(), Callers.ACME, SearchQueries.PartitionHits.class));
            assertEquals(400, refused.status());
            assertEquals("query_too_long", refused.code());

            next.set(new Remote(503, "{\"error\":{\"code\":\"unavailable\",\"message\":\"moving\"}}"));
            assertTrue(
                    fanOut.post(remote, "/x", Map.of(), Callers.ACME, SearchQueries.PartitionHits.class)
                            .isEmpty(),
                    "a partition moving is missing, not an error");
            assertEquals(4, calls.get());
        } finally {
            server.close();
        }
    }
}
