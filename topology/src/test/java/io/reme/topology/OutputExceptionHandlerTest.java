package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetterPayload;
import io.reme.dlq.DlqReason;
import io.reme.metrics.PipelineMetrics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Response;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Result;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.SerializationExceptionOrigin;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the production exception handler answers for each kind of failed output. */
class OutputExceptionHandlerTest {
    private static final String DLQ = "reme.dlq";
    private static final int INPUT_LIMIT = 1024;

    private final List<DlqReason> reported = new ArrayList<>();
    private final OutputExceptionHandler handler = new OutputExceptionHandler();
    private byte[] source = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

    @BeforeEach
    void configure() {
        handler.configure(Map.of(
                OutputExceptionHandler.DLQ_TOPIC_CONFIG,
                DLQ,
                OutputExceptionHandler.INPUT_BYTES_CONFIG,
                Integer.toString(INPUT_LIMIT),
                OutputExceptionHandler.METRICS_CONFIG,
                new PipelineMetrics() {
                    @Override
                    public void deadLetter(DlqReason reason) {
                        reported.add(reason);
                    }
                }));
    }

    @Test
    void anOversizedOutputIsDroppedAndItsInputDeadLettered() {
        Response response =
                handler.handleError(context(), output("reme.llm.requests"), new RecordTooLargeException("too large"));
        assertEquals(Result.RESUME, response.result());
        assertEquals(1, response.deadLetterQueueRecords().size());
        ProducerRecord<byte[], byte[]> letter =
                response.deadLetterQueueRecords().get(0);
        assertEquals(DLQ, letter.topic());
        assertArrayEquals(source, letter.value(), "an input within the limit is carried whole");
        Headers headers = letter.headers();
        assertEquals("OUTPUT_TOO_LARGE", DeadLetterHeaders.read(headers, DeadLetterHeaders.REASON));
        assertEquals("reme.messages", DeadLetterHeaders.read(headers, DeadLetterHeaders.TOPIC));
        assertEquals("3", DeadLetterHeaders.read(headers, DeadLetterHeaders.PARTITION));
        assertEquals("77", DeadLetterHeaders.read(headers, DeadLetterHeaders.OFFSET));
        assertTrue(DeadLetterHeaders.read(headers, DeadLetterHeaders.DETAIL).contains("reme.llm.requests"));
        assertEquals(List.of(DlqReason.OUTPUT_TOO_LARGE), reported);
    }

    @Test
    void anUnserialisableOutputIsDroppedAndALargeInputCarriedAsAnExcerpt() {
        source = new byte[10 * INPUT_LIMIT];
        Response response = handler.handleSerializationError(
                context(),
                output("reme.dialog"),
                new SerializationException("cannot write"),
                SerializationExceptionOrigin.VALUE);
        assertEquals(Result.RESUME, response.result());
        ProducerRecord<byte[], byte[]> letter =
                response.deadLetterQueueRecords().get(0);
        assertArrayEquals(
                Arrays.copyOf(source, Math.min(DeadLetterPayload.EXCERPT_BYTES, INPUT_LIMIT)), letter.value());
        assertEquals(
                Integer.toString(source.length),
                DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.VALUE_SIZE));
        assertEquals("OUTPUT_REJECTED", DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.REASON));
    }

    @Test
    void aDeadLetterThatCannotBeWrittenIsDroppedNotDeadLetteredAgain() {
        Response response = handler.handleSerializationError(
                context(), output(DLQ), new RecordTooLargeException("too large"), SerializationExceptionOrigin.VALUE);
        assertEquals(Result.RESUME, response.result());
        assertTrue(response.deadLetterQueueRecords().isEmpty());
        assertEquals(List.of(DlqReason.OUTPUT_TOO_LARGE), reported);
    }

    @Test
    void failuresThatAreNotTheRecordsAreRetriedOrFailTheTask() {
        assertEquals(
                Result.RETRY,
                handler.handleError(context(), output("reme.dialog"), new TimeoutException("broker away"))
                        .result());
        assertEquals(
                Result.FAIL,
                handler.handleError(context(), output("reme.dialog"), new TopicAuthorizationException("no ACL"))
                        .result());
        assertTrue(reported.isEmpty());
    }

    private static ProducerRecord<byte[], byte[]> output(String topic) {
        return new ProducerRecord<>(topic, "acme/s1".getBytes(StandardCharsets.UTF_8), new byte[] {1});
    }

    private ErrorHandlerContext context() {
        return new ErrorHandlerContext() {
            @Override
            public String topic() {
                return "reme.messages";
            }

            @Override
            public int partition() {
                return 3;
            }

            @Override
            public long offset() {
                return 77;
            }

            @Override
            public Headers headers() {
                return new RecordHeaders();
            }

            @Override
            public String processorNodeId() {
                return "llm-requests-sink";
            }

            @Override
            public TaskId taskId() {
                return new TaskId(0, 3);
            }

            @Override
            public long timestamp() {
                return 1_000L;
            }

            @Override
            public byte[] sourceRawKey() {
                return "acme/s1".getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public byte[] sourceRawValue() {
                return source;
            }
        };
    }
}
