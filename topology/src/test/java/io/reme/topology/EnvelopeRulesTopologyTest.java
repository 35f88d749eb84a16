package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.session.ArchivedMessage;
import io.reme.session.SessionCounters.Counter;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The envelope rules on the Kafka path: times far from the processor's clock are dead-lettered
 * before they reach state; tool results without a call in the window, ids reused turn after turn and
 * arguments that are not JSON are kept as they came and never pin the window.
 */
class EnvelopeRulesTopologyTest {
    /** The small window; default time bounds (2000 on, 1 day ahead). */
    private static final SessionSettings SETTINGS =
            SessionSettings.defaults().withDefaultPolicy(SessionDriver.SMALL_WINDOW);
    /** The processor's clock: the driver's wall clock starts here. */
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private int sent;

    @BeforeEach
    void start() {
        driver = SessionDriver.of(SETTINGS, SessionDriver.TOKENS, DriverProperties.of("envelope", stateDir), NOW);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private ObjectNode envelope(String role) {
        return SessionDriver.envelope("acme", "s1", "m" + sent, role);
    }

    private void send(ObjectNode envelope, Instant recordTime) {
        driver.send(envelope, recordTime);
        sent++;
    }

    private void sendAt(ObjectNode envelope) {
        Instant time = NOW.plusSeconds(sent);
        send(envelope.put("time", time.toString()), time);
    }

    private void text(String role, String content) {
        sendAt(envelope(role).put("content", content));
    }

    private void call(String id, String arguments) {
        sendAt(SessionDriver.withToolCall(envelope("assistant"), id, "run", arguments));
    }

    private void result(String id, String output) {
        sendAt(SessionDriver.withToolResult(envelope("tool"), id, "run", output));
    }

    private SessionHeader header() {
        return driver.header("acme", "s1");
    }

    private static String header(TestRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void timesFarFromTheProcessorsClockAreDeadLetteredBeforeTheyReachState() {
        send(envelope("user").put("content", "from the far future").put("time", "9999-12-31T00:00:00Z"), NOW);
        send(envelope("user").put("content", "from before 2000").put("time", "1999-12-31T23:59:59Z"), NOW);
        send(envelope("user").put("content", "no time, record dated in two days"), NOW.plus(Duration.ofDays(2)));
        send(
                envelope("user").put("content", "good time, record from 1970").put("time", NOW.toString()),
                Instant.ofEpochMilli(1_000));

        assertNull(header(), "none of them reached the session");
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(4, dead.size());
        for (TestRecord<byte[], byte[]> record : dead) {
            assertEquals(DlqReason.INVALID_TIME.name(), header(record, DeadLetterHeaders.REASON));
        }
        assertTrue(
                header(dead.get(0), DeadLetterHeaders.DETAIL)
                        .startsWith("time 9999-12-31T00:00:00Z is more than PT24H"),
                header(dead.get(0), DeadLetterHeaders.DETAIL));
        assertTrue(header(dead.get(1), DeadLetterHeaders.DETAIL).contains("before 2000-01-01T00:00:00Z"));
        assertTrue(header(dead.get(2), DeadLetterHeaders.DETAIL).contains("the record timestamp"));
        assertTrue(header(dead.get(3), DeadLetterHeaders.DETAIL).startsWith("record timestamp"));

        // An hour ahead (a producer's clock running fast) is within the default skew of a day.
        Instant ahead = NOW.plus(Duration.ofHours(1));
        send(envelope("user").put("content", "a fast clock").put("time", ahead.toString()), ahead);
        assertEquals(1, header().liveCount());
        assertEquals(ahead, header().lastMessageAt());
        assertTrue(driver.dlq().isEmpty());
    }

    @Test
    void orphanResultsReusedIdsAndRawArgumentsAreKeptAndNeverPinTheWindow() {
        // A result whose call was never seen (or was compacted away): kept as a tool result.
        text("user", "first question");
        result("ghost", "output of a call this session never saw");
        text("assistant", "first answer");
        // Every call is named call_0, as some agents do; one call's arguments are not JSON.
        for (int turn = 0; turn < 3; turn++) {
            text("user", "question " + turn);
            call("call_0", turn == 1 ? "not json {" : "{\"n\":" + turn + "}");
            result("call_0", "done " + turn);
            text("assistant", "answer " + turn);
        }
        // The window crosses its threshold on a call whose result has not come yet.
        text("user", "last question");
        call("call_0", "{\"text\":\"" + SessionDriver.repeatedWord(900) + "\"}");

        assertTrue(driver.dlq().isEmpty(), "nothing is dead-lettered");
        SessionHeader header = header();
        assertEquals(0, header.counters().get(Counter.NO_VALID_CUT), "the reused id does not pin the window");
        List<LlmRequest> compact = driver.requestsOf(LlmKind.COMPACT);
        assertEquals(1, compact.size());
        LlmRequest request = compact.get(0);
        // Everything before the last turn is compacted; the running call stays live for its result.
        assertEquals(15, request.dialog().messages().size());
        assertEquals(List.of(), request.compaction().unansweredCalls());
        assertTrue(
                request.dialog().messages().stream()
                        .flatMap(m -> m.content().stream())
                        .anyMatch(b -> b.equals(new Block.ToolUse("call_0", "run", "not json {"))),
                "arguments that are not JSON are carried as they came");

        driver.advanceWallClockTime(Duration.ofSeconds(1));
        driver.sendResult(LlmResult.ok(request, SessionDriver.summary("work"), 1, NOW), NOW.plusSeconds(sent));
        List<Message> archived = driver.dialog().readValuesToList().stream()
                .map(ArchivedMessage::message)
                .toList();
        assertEquals(15, archived.size(), "every compacted message is archived, the orphan result included");
        assertEquals(
                List.of(new Block.ToolResult("ghost", "run", "output of a call this session never saw")),
                archived.get(1).content());
        assertEquals(2, header().liveCount(), "the running call and its turn stay live");
        assertNotNull(header().summary().at());
    }
}
