package io.reme.llm;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The header that authenticates a worker's answer on {@code llm.results}: an HMAC of the record's key and
 * value (request id, epoch, kind, status and payload all in the value) under the deployment's request
 * secret. The session processor applies no result without a valid one.
 */
public final class ResultSignature {
    public static final String HEADER = "reme.result.signature";

    private ResultSignature() {}

    /** The header to send with the result record {@code key} → {@code value}. */
    public static Header header(RequestSecret secret, byte[] key, byte[] value) {
        return new RecordHeader(HEADER, secret.signResult(key, value).getBytes(StandardCharsets.US_ASCII));
    }

    /** Whether the record carries the secret's signature of exactly this key and value. */
    public static boolean valid(RequestSecret secret, Headers headers, byte[] key, byte[] value) {
        Header header = headers == null ? null : headers.lastHeader(HEADER);
        return header != null
                && header.value() != null
                && key != null
                && value != null
                && secret.verifyResult(key, value, new String(header.value(), StandardCharsets.US_ASCII));
    }
}
