package io.reme.diary;

import io.reme.llm.RequestSecret;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The header that authenticates a record on {@code diary.edits}: an HMAC of its key and value under
 * the deployment's request secret. The workers and the workspace watch add it; the diary processor
 * refuses edits without a valid one, so a Kafka writer without the secret cannot rewrite a diary.
 */
public final class EditSignature {
    public static final String HEADER = "reme.edit.signature";

    private EditSignature() {}

    /** The header to send with the edit record {@code key} → {@code value}. */
    public static Header header(RequestSecret secret, byte[] key, byte[] value) {
        return new RecordHeader(HEADER, secret.signEdit(key, value).getBytes(StandardCharsets.US_ASCII));
    }

    /** Whether the record carries the secret's signature of exactly this key and value. */
    public static boolean valid(RequestSecret secret, Headers headers, byte[] key, byte[] value) {
        Header header = headers == null ? null : headers.lastHeader(HEADER);
        return header != null
                && header.value() != null
                && secret.verifyEdit(key, value, new String(header.value(), StandardCharsets.US_ASCII));
    }
}
