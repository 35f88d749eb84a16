package io.reme.api.context;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.api.ApiException;
import io.reme.dlq.DlqReason;
import io.reme.dlq.InputLimit;
import io.reme.dlq.InvalidInputException;
import io.reme.json.Json;
import io.reme.message.Message;
import io.reme.message.MessageParser;
import io.reme.message.TimeBounds;
import io.reme.trace.TraceHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Headers;

/**
 * {@code POST /v1/messages}: produces envelopes to the input topic for clients without a Kafka
 * client. The token's tenant is filled in (a different tenant in the body is refused), a missing
 * {@code id} and {@code time} are fixed here so Kafka-level retries carry the same message (a caller
 * that retries over HTTP should send its own {@code id}: the session drops a repeat of its last
 * message id), and the envelope is validated with the pipeline's own parser so the caller hears about a bad
 * message now instead of finding it in the dead-letter topic. Times are bounded against the server's
 * clock ({@link TimeBounds}): a {@code time} too old or too far ahead is a 400 {@code invalid_time}.
 */
public final class MessageIngest {
    private static final int MAX_BATCH = 1000;
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final MessageParser parser;
    private final InputLimit limit;

    public MessageIngest(Producer<byte[], byte[]> producer, String topic, int maxMessageBytes, TimeBounds timeBounds) {
        this.producer = producer;
        this.topic = topic;
        this.parser = new MessageParser(maxMessageBytes, timeBounds);
        this.limit = new InputLimit(maxMessageBytes);
    }

    /** The input topic, which the session stores are partitioned like. */
    public String topic() {
        return topic;
    }

    /** The producer of this instance's API, which other writes to Kafka share. */
    Producer<byte[], byte[]> producer() {
        return producer;
    }

    /** The input topic's partition count, from the producer's metadata (fetched once, then cached by it). */
    public int partitions() {
        return producer.partitionsFor(topic).size();
    }

    /** Accepts one envelope or an array; all are validated before any is produced. */
    public Map<String, Object> ingest(String tenant, JsonNode body) {
        return ingest(tenant, body, TraceHeaders.NONE);
    }

    /**
     * As {@link #ingest(String, JsonNode)}, each record carrying the request's trace context ({@link TraceHeaders}:
     * what the pipeline derives from the messages carries it on).
     */
    public Map<String, Object> ingest(String tenant, JsonNode body, Headers trace) {
        List<JsonNode> envelopes = new ArrayList<>();
        if (body != null && body.isArray()) {
            body.forEach(envelopes::add);
        } else {
            envelopes.add(body);
        }
        if (envelopes.isEmpty() || envelopes.size() > MAX_BATCH) {
            throw new ApiException(400, "invalid_batch", "send 1 to " + MAX_BATCH + " messages");
        }
        long now = System.currentTimeMillis();
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < envelopes.size(); i++) {
            ProducerRecord<byte[], byte[]> record = record(tenant, envelopes.get(i), i, envelopes.size() > 1, now);
            TraceHeaders.addTo(record.headers(), trace);
            records.add(record);
        }
        List<Future<RecordMetadata>> sent = records.stream().map(producer::send).toList();
        List<Map<String, Object>> accepted = new ArrayList<>();
        try {
            for (int i = 0; i < sent.size(); i++) {
                RecordMetadata metadata = sent.get(i).get(30, TimeUnit.SECONDS);
                accepted.add(Map.of(
                        "key",
                        new String(records.get(i).key(), StandardCharsets.UTF_8),
                        "partition",
                        metadata.partition(),
                        "offset",
                        metadata.offset()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while producing");
        } catch (ExecutionException | TimeoutException e) {
            throw ApiException.unavailable("the message could not be written to Kafka", e);
        }
        return Map.of("accepted", accepted.size(), "records", accepted);
    }

    private ProducerRecord<byte[], byte[]> record(
            String tenant, JsonNode envelope, int index, boolean batch, long now) {
        String where = batch ? "message " + index + ": " : "";
        if (envelope == null || !envelope.isObject()) {
            throw new ApiException(400, "malformed_json", where + "a message must be a JSON object");
        }
        ObjectNode copy = envelope.deepCopy();
        JsonNode given = copy.get("tenant");
        if (given != null && !given.isNull() && !tenant.equals(given.asText())) {
            throw new ApiException(403, "tenant_mismatch", where + "the message names another tenant than the API key");
        }
        copy.put("tenant", tenant);
        if (!copy.hasNonNull("id")) {
            copy.put("id", UUID.randomUUID().toString());
        }
        if (!copy.hasNonNull("time")) {
            copy.put("time", Instant.ofEpochMilli(now).toString());
        }
        byte[] value;
        byte[] key = (tenant + "/" + copy.path("session").asText("")).getBytes(StandardCharsets.UTF_8);
        try {
            value = Json.MAPPER.writeValueAsBytes(copy);
            Message parsed = parser.parse(key, value, now, now, "unused");
            key = (parsed.tenant() + "/" + parsed.session()).getBytes(StandardCharsets.UTF_8);
            // The processor counts the key too: never accept what it would dead-letter as too large.
            String tooLarge = limit.violation(key, value, null);
            if (tooLarge != null) {
                throw new InvalidInputException(DlqReason.TOO_LARGE, tooLarge);
            }
        } catch (InvalidInputException e) {
            throw new ApiException(400, e.reason().name().toLowerCase(Locale.ROOT), where + e.getMessage());
        } catch (IOException e) {
            // Of a tree the API has just parsed: the JSON library's message names its classes, not the field.
            throw new ApiException(400, "malformed_json", where + "the message is not a JSON object the API reads");
        }
        return new ProducerRecord<>(topic, key, value);
    }
}
