package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.reme.indexstore.MemoryPartitioning;
import io.reme.llm.LlmRequest;
import io.reme.metrics.PipelineMetrics;
import io.reme.session.SessionSettings;
import io.reme.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace context a message carries goes on with the LLM requests it causes, and only a well-formed one. */
class TraceCarryTopologyTest {
    private static final SessionSettings SETTINGS = SessionDriver.settings(SessionDriver.SMALL_WINDOW);

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private int sent;

    @BeforeEach
    void start() {
        driver = new SessionDriver(
                RemeTopology.build(
                        SessionDriver.TOPICS,
                        SETTINGS,
                        SessionDriver.TOKENS,
                        new MemoryPartitioning(1),
                        PipelineMetrics.NONE),
                DriverProperties.of("test", stateDir),
                null,
                SETTINGS.requestSecret());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private static Headers trace(String traceparent, String tracestate) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(TraceHeaders.TRACEPARENT, traceparent.getBytes(StandardCharsets.US_ASCII));
        if (tracestate != null) {
            headers.add(TraceHeaders.TRACESTATE, tracestate.getBytes(StandardCharsets.US_ASCII));
        }
        return headers;
    }

    /** Three turns of 200 words: the last crosses the threshold. */
    private void fillOverThreshold(String session, Headers headers) {
        for (int turn = 0; turn < 3; turn++) {
            for (String role : List.of("user", "assistant")) {
                driver.send(
                        SessionDriver.message(
                                "acme",
                                session,
                                session + "-" + sent,
                                role,
                                role + " " + turn + SessionDriver.words(200),
                                T0.plusSeconds(sent)),
                        T0.plusSeconds(sent),
                        headers);
                sent++;
            }
        }
    }

    private static String header(TestRecord<String, LlmRequest> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.US_ASCII);
    }

    @Test
    void theRequestsAMessageCausesCarryItsTraceContext() {
        fillOverThreshold("s1", trace(TRACEPARENT, "vendor=abc"));
        List<TestRecord<String, LlmRequest>> requests = driver.requests().readRecordsToList();
        assertEquals(2, requests.size(), "the COMPACT request and its DIARY twin");
        for (TestRecord<String, LlmRequest> request : requests) {
            assertEquals(
                    TRACEPARENT,
                    header(request, TraceHeaders.TRACEPARENT),
                    request.value().kind().name());
            assertEquals("vendor=abc", header(request, TraceHeaders.TRACESTATE));
        }
    }

    @Test
    void aMalformedTraceContextIsNotCarried() {
        fillOverThreshold("s2", trace("00-00000000000000000000000000000000-00f067aa0ba902b7-01", "vendor=abc"));
        List<TestRecord<String, LlmRequest>> requests = driver.requests().readRecordsToList();
        assertFalse(requests.isEmpty());
        for (TestRecord<String, LlmRequest> request : requests) {
            assertNull(header(request, TraceHeaders.TRACEPARENT), "an all-zero trace id is invalid");
            assertNull(header(request, TraceHeaders.TRACESTATE), "no state without a parent");
        }
    }

    @Test
    void aMessageWithoutTraceContextCausesRequestsWithout() {
        fillOverThreshold("s3", new RecordHeaders());
        List<TestRecord<String, LlmRequest>> requests = driver.requests().readRecordsToList();
        assertFalse(requests.isEmpty());
        for (TestRecord<String, LlmRequest> request : requests) {
            assertFalse(request.headers().iterator().hasNext(), "no headers at all");
        }
    }
}
