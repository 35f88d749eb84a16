package io.reme.api.diary;

import io.reme.api.ApiException;
import io.reme.diary.DiaryEdit;
import io.reme.diary.EditSignature;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Submits diary edits made over HTTP to {@code diary.edits}, signed with the deployment's request
 * secret like the workers' and the workspace watch's, keyed by the document so the single writer
 * ({@code DiaryEditProcessor}) decides whether the edit's base version is still current. Thread-safe.
 */
public final class DiaryWriter {
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final RequestSecret secret;
    private final int maxBytes;

    /** @param maxBytes the input limit of {@code diary.edits} (key + value); a larger edit is refused here */
    public DiaryWriter(Producer<byte[], byte[]> producer, String topic, RequestSecret secret, int maxBytes) {
        this.producer = producer;
        this.topic = topic;
        this.secret = secret;
        this.maxBytes = maxBytes;
    }

    void submit(DiaryEdit edit) {
        byte[] key = edit.key().key().getBytes(StandardCharsets.UTF_8);
        byte[] value;
        try {
            value = Json.MAPPER.writeValueAsBytes(edit);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The processor dead-letters an edit over the input limit; refusing it here says so to the caller.
        if (key.length + value.length > maxBytes - 1024) {
            throw new ApiException(
                    413, "too_large", "the document is larger than the input limit (" + maxBytes + " bytes)");
        }
        try {
            producer.send(new ProducerRecord<>(
                            topic, null, key, value, List.of(EditSignature.header(secret, key, value))))
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while writing the edit");
        } catch (ExecutionException | TimeoutException e) {
            throw ApiException.unavailable("the edit could not be written", e);
        }
    }
}
