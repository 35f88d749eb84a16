package io.reme.topology;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.metrics.PipelineMetrics;
import io.reme.topic.RecordLimits;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' {@code production.exception.handler}: an output the record itself makes impossible to
 * write (too large, not serialisable, refused by the broker as invalid) is dropped with a logged reason,
 * counted as a dead letter and replaced on {@code dlq} by a dead letter of the input that made it (an
 * excerpt when large, with size, digest and origin), so one bad record never fails a task again and
 * again. Anything else is not the record's fault: retriable errors are retried, the rest fails the
 * thread as by default. Dead letters themselves are never dead-lettered again.
 *
 * <p>Configured through the Streams properties: {@link #DLQ_TOPIC_CONFIG}, {@link #INPUT_BYTES_CONFIG}
 * and, as an object, {@link #METRICS_CONFIG}.
 */
public final class OutputExceptionHandler implements ProductionExceptionHandler {
    public static final String DLQ_TOPIC_CONFIG = "reme.streams.dlq.topic";
    /** The input limit: a dead letter carries the input record whole up to it. */
    public static final String INPUT_BYTES_CONFIG = "reme.streams.input.max-bytes";
    /** A {@link PipelineMetrics} instance (Streams hands configured objects through as they are). */
    public static final String METRICS_CONFIG = "reme.streams.metrics";

    private static final Logger LOG = LoggerFactory.getLogger(OutputExceptionHandler.class);

    private String dlqTopic;
    private int inputBytes = RecordLimits.DEFAULT_INPUT_BYTES;
    private PipelineMetrics metrics = PipelineMetrics.NONE;

    @Override
    public void configure(Map<String, ?> configs) {
        Object topic = configs.get(DLQ_TOPIC_CONFIG);
        dlqTopic = topic == null ? null : topic.toString();
        Object input = configs.get(INPUT_BYTES_CONFIG);
        if (input != null) {
            inputBytes = Integer.parseInt(input.toString());
        }
        if (configs.get(METRICS_CONFIG) instanceof PipelineMetrics configured) {
            metrics = configured;
        }
    }

    @Override
    public Response handleError(
            ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (exception instanceof RecordTooLargeException || exception instanceof RecordBatchTooLargeException) {
            return drop(context, record.topic(), DlqReason.OUTPUT_TOO_LARGE, exception);
        }
        if (exception instanceof InvalidRecordException) {
            return drop(context, record.topic(), DlqReason.OUTPUT_REJECTED, exception);
        }
        if (exception instanceof RetriableException) {
            return Response.retry();
        }
        return Response.fail();
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Response handleSerializationError(
            ErrorHandlerContext context,
            ProducerRecord record,
            Exception exception,
            SerializationExceptionOrigin origin) {
        DlqReason reason =
                exception instanceof RecordTooLargeException ? DlqReason.OUTPUT_TOO_LARGE : DlqReason.OUTPUT_REJECTED;
        return drop(context, record.topic(), reason, exception);
    }

    private Response drop(ErrorHandlerContext context, String topic, DlqReason reason, Exception exception) {
        LOG.error(
                "output dropped reason={} topic={} node={} task={} source={}-{}-{} error={}",
                reason,
                topic,
                context.processorNodeId(),
                context.taskId(),
                context.topic(),
                context.partition(),
                context.offset(),
                exception.toString());
        metrics.deadLetter(reason);
        if (dlqTopic == null || dlqTopic.equals(topic)) {
            return Response.resume();
        }
        return Response.resume(List.of(deadLetter(
                context,
                reason,
                "output to " + topic + " from " + context.processorNodeId() + " dropped: " + exception.getMessage())));
    }

    private ProducerRecord<byte[], byte[]> deadLetter(ErrorHandlerContext context, DlqReason reason, String detail) {
        Headers headers = DeadLetterHeaders.of(
                context.headers(),
                reason,
                detail,
                context.topic(),
                context.partition(),
                context.offset(),
                context.timestamp());
        DeadLetters.Bounded bounded =
                DeadLetters.bound(context.sourceRawKey(), context.sourceRawValue(), headers, inputBytes);
        Long timestamp = context.timestamp() < 0 ? null : context.timestamp();
        return new ProducerRecord<>(dlqTopic, null, timestamp, bounded.key(), bounded.value(), headers);
    }
}
