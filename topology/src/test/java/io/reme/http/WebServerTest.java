package io.reme.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/** A server's threads never keep the JVM up; what it refuses itself is JSON. */
class WebServerTest {

    private static Set<String> nonDaemonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !t.isDaemon())
                .map(Thread::getName)
                .collect(Collectors.toSet());
    }

    @Test
    void aRunningServerAddsNoNonDaemonThread() throws Exception {
        Set<String> before = nonDaemonThreads();
        WebServer server = WebServer.bind("web-test", "127.0.0.1", 0, HttpSettings.DEFAULT);
        try {
            server.start(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    response.setStatus(204);
                    callback.succeeded();
                    return true;
                }
            });
            // Its own client: the test counts the threads the server leaves, and a shared client's come and go.
            HttpResponse<String> answer = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(204, answer.statusCode());
            Set<String> added = nonDaemonThreads();
            added.removeAll(before);
            added.removeIf(name -> name.startsWith("HttpClient"));
            assertTrue(added.isEmpty(), "non-daemon threads: " + added);
        } finally {
            server.close();
        }
    }
}
