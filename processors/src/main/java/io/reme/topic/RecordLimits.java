package io.reme.topic;

import java.util.Map;

/**
 * The record sizes every topic and changelog of the pipeline is set up for, from the two configured
 * limits. Raw-byte inputs ({@code messages}, {@code llm.results}, {@code diary.edits}) are refused over
 * {@code inputBytes} before anything is written; every output is refused over {@code recordBytes} before
 * it is sent; every topic and changelog accepts {@code recordBytes} plus headroom for keys and headers
 * ({@code messages} only its input limit plus headroom). The input limit is at most half the record
 * limit, so whatever one input becomes (a stored message, an archived one, a dead letter) fits every
 * output with room to spare.
 *
 * @param inputBytes the largest input record (key, value and headers)
 * @param recordBytes the largest record the pipeline writes (an LLM request carries a whole window)
 */
public record RecordLimits(int inputBytes, int recordBytes) {
    /** Room for key, headers and batch overhead above a value limit. */
    public static final int HEADROOM = 64 * 1024;

    public static final int DEFAULT_INPUT_BYTES = 4 * 1024 * 1024;
    public static final int DEFAULT_RECORD_BYTES = 16 * 1024 * 1024;
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";

    public RecordLimits {
        if (inputBytes <= 0 || recordBytes <= 0) {
            throw new IllegalArgumentException("limits must be positive");
        }
        if ((long) inputBytes * 2 > recordBytes) {
            throw new IllegalArgumentException("the input limit (" + inputBytes + " bytes) must be at most half the "
                    + "record limit (" + recordBytes + " bytes), so that what an input becomes fits every output");
        }
    }

    public static RecordLimits defaults() {
        return new RecordLimits(DEFAULT_INPUT_BYTES, DEFAULT_RECORD_BYTES);
    }

    /** The default record limit, or twice the input limit if that is larger. */
    public static RecordLimits forInput(int inputBytes) {
        return new RecordLimits(inputBytes, Math.max(DEFAULT_RECORD_BYTES, 2 * inputBytes));
    }

    /** {@code max.message.bytes} of {@code messages}: the broker refuses larger uncompressed batches at once. */
    public int inputTopicMaxMessageBytes() {
        return inputBytes + HEADROOM;
    }

    /** {@code max.message.bytes} of every other topic and changelog, and the producers' {@code max.request.size}. */
    public int topicMaxMessageBytes() {
        return recordBytes + HEADROOM;
    }

    /** The log config of every logged store, so changelogs do not depend on broker defaults. */
    public Map<String, String> changelogConfig() {
        return Map.of(MAX_MESSAGE_BYTES, Integer.toString(topicMaxMessageBytes()));
    }
}
