package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class SessionHeaderSerdeTest {
    private final SessionHeaderSerde serde = new SessionHeaderSerde();

    private static SessionHeader full() {
        return full(4_096);
    }

    /** Every field set; {@code incarnation} 0 as values written before incarnations read. */
    private static SessionHeader full(long incarnation) {
        Instant t = Instant.parse("2026-11-30T09:00:00.123456789Z");
        return new SessionHeader(
                "t1",
                "s1",
                "u1",
                new SessionHeader.Window(120, 80, 40, 87_000, List.of(117L, 119L)),
                new SessionHeader.LastMessage("m-119", t, 1_764_493_200_000L),
                60,
                new SessionHeader.Summary(900, 3, t.minusSeconds(60)),
                new SessionHeader.Compaction(
                        7,
                        new PendingCompaction("req-3", 7, 80, 99, 20, 40_000, t, List.of("call-1", "call-2")),
                        true,
                        "req-2",
                        t.plusSeconds(30),
                        "no result within PT5M",
                        t.minusSeconds(5),
                        20_000,
                        incarnation),
                SessionCounters.zero()
                        .plus(SessionCounters.Counter.MESSAGES, 120)
                        .plus(SessionCounters.Counter.TRUNCATED_OUTPUTS, 4)
                        .plus(SessionCounters.Counter.SPANS_SHRUNK));
    }

    @Test
    void binaryFormRoundTripsEveryField() {
        for (SessionHeader header :
                List.of(full(), SessionHeader.empty("t1", "s1", "u1"), SessionHeader.begunAt("t1", "s1", "u1", 41))) {
            byte[] bytes = serde.serializer().serialize("t", header);
            assertEquals(SessionHeaderSerde.VERSION_2, bytes[0]);
            assertEquals(header, serde.deserializer().deserialize("t", bytes));
        }
        assertEquals(4_096, full().incarnation());
        assertEquals(42, SessionHeader.begunAt("t1", "s1", "u1", 41).incarnation());
        assertEquals(0, SessionHeader.begunAt("t1", "s1", "u1", -1).incarnation(), "offset unknown");
    }

    /**
     * Values as stores and changelogs hold them today, written by the header's serde before its fields
     * were grouped: the binary form, and the flat JSON form written before that. They must still load.
     */
    private static final String STORED_BINARY =
            "010000000274310000000273310000000275310000000000000078000000000000005000000028000000000001"
                    + "53d8000000056d2d31313901000000006b0d3b10075bcd150000019ad3fd8a80000000000000003c0000000200"
                    + "0000000000007500000000000000770100000000000003840000000301000000006b0d3ad4075bcd1500000005"
                    + "7265712d32000000000000000701000000057265712d3300000000000000070000000000000050000000000000"
                    + "0063000000140000000000009c4001000000006b0d3b10075bcd15000000020000000663616c6c2d3100000006"
                    + "63616c6c2d3201000000006b0d3b2e075bcd15000000156e6f20726573756c742077697468696e205054354d01"
                    + "000000006b0d3b0b075bcd1500000003000000084d455353414745530000000000000078000000115452554e43"
                    + "415445445f4f55545055545300000000000000040000000c5350414e535f534852554e4b000000000000000100"
                    + "00000000004e20";

    private static final String STORED_EMPTY_BINARY =
            "010000000274310000000273310000000275310000000000000000000000000000000000000000000000000000"
                    + "0000ffffffff000000000000000000ffffffffffffffff000000000000000000000000000000000000ffffffff"
                    + "00000000000000000000ffffffff00000000000000000000000000";

    private static final String STORED_JSON =
            "{\"tenant\":\"t1\",\"session\":\"s1\",\"user\":\"u1\",\"nextSeq\":120,\"firstLiveSeq\":80,\"liveCount\":40,\""
                    + "messageTokens\":87000,\"lastMessageId\":\"m-119\",\"lastMessageAt\":\"2026-11-30T09:00:00.12345678"
                    + "9Z\",\"lastActiveMs\":1764493200000,\"diaryCoveredSeq\":60,\"recentToolSeqs\":[117,119],\"planBloc"
                    + "ked\":true,\"summaryTokens\":900,\"summaryVersion\":3,\"lastSummaryAt\":\"2026-11-30T08:59:00.1234"
                    + "56789Z\",\"lastResolvedRequestId\":\"req-2\",\"epoch\":7,\"pending\":{\"requestId\":\"req-3\",\"epoch\":7"
                    + ",\"fromSeq\":80,\"toSeq\":99,\"messageCount\":20,\"tokens\":40000,\"requestedAt\":\"2026-11-30T09:00:"
                    + "00.123456789Z\",\"unansweredCalls\":[\"call-1\",\"call-2\"]},\"nextAttemptAt\":\"2026-11-30T09:00:30"
                    + ".123456789Z\",\"lastFailure\":\"no result within PT5M\",\"lastFailureAt\":\"2026-11-30T08:59:55.12"
                    + "3456789Z\",\"counters\":{\"MESSAGES\":120,\"TRUNCATED_OUTPUTS\":4,\"SPANS_SHRUNK\":1},\"spanLimit\":2"
                    + "0000}";

    private static final String STORED_EMPTY_JSON =
            "{\"tenant\":\"t1\",\"session\":\"s1\",\"user\":\"u1\",\"nextSeq\":0,\"firstLiveSeq\":0,\"liveCount\":0,\"mess"
                    + "ageTokens\":0,\"lastMessageId\":null,\"lastMessageAt\":null,\"lastActiveMs\":0,\"diaryCoveredSeq\":"
                    + "-1,\"recentToolSeqs\":[],\"planBlocked\":false,\"summaryTokens\":0,\"summaryVersion\":0,\"lastSumma"
                    + "ryAt\":null,\"lastResolvedRequestId\":null,\"epoch\":0,\"pending\":null,\"nextAttemptAt\":null,\"las"
                    + "tFailure\":null,\"lastFailureAt\":null,\"counters\":{},\"spanLimit\":0}";

    @Test
    void readsTheBinaryFormStoresAndChangelogsHold() {
        assertEquals(
                full(0), serde.deserializer().deserialize("t", HexFormat.of().parseHex(STORED_BINARY)));
        assertEquals(
                SessionHeader.empty("t1", "s1", "u1"),
                serde.deserializer().deserialize("t", HexFormat.of().parseHex(STORED_EMPTY_BINARY)));
    }

    @Test
    void readsTheJsonFormThatStoresAndChangelogsHoldFromBefore() {
        assertEquals(full(0), serde.deserializer().deserialize("t", STORED_JSON.getBytes(StandardCharsets.UTF_8)));
        assertEquals(
                SessionHeader.empty("t1", "s1", "u1"),
                serde.deserializer().deserialize("t", STORED_EMPTY_JSON.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void smallerThanJsonAndDamagedValuesAreRefused() {
        byte[] bytes = serde.serializer().serialize("t", full());
        byte[] json = STORED_JSON.getBytes(StandardCharsets.UTF_8);
        assertTrue(bytes.length < json.length / 2, "binary " + bytes.length + " json " + json.length);
        assertThrows(
                SerializationException.class,
                () -> serde.deserializer().deserialize("t", Arrays.copyOf(bytes, bytes.length - 1)));
        assertThrows(SerializationException.class, () -> serde.deserializer().deserialize("t", new byte[] {2}));
    }
}
