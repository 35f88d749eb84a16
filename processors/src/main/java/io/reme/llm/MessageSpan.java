package io.reme.llm;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.reme.json.Json;
import io.reme.message.Message;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The messages of a span that several records carry: a compaction's COMPACT, DIARY and EXTRACT
 * requests and the diary span kept for their retries. The span is written as JSON once and copied
 * into each record; a window's span is tens of thousands of tokens, and writing it four times showed
 * in the session processor's profile. Reads as an immutable list; the JSON is byte for byte a plain
 * list's (records are written as UTF-8; other outputs write it as any list), and a reader gets a
 * plain list back.
 */
@JsonSerialize(using = MessageSpan.Writer.class)
public final class MessageSpan extends AbstractList<Message> implements RandomAccess {
    private static final ObjectWriter LIST = Json.MAPPER.writerFor(new TypeReference<List<Message>>() {});

    private final List<Message> messages;
    /** Written on first use, by the stream thread that built the span. */
    private SerializableString json;

    private MessageSpan(List<Message> messages) {
        this.messages = List.copyOf(messages);
    }

    public static MessageSpan of(List<Message> messages) {
        return messages instanceof MessageSpan span ? span : new MessageSpan(messages);
    }

    @Override
    public Message get(int index) {
        return messages.get(index);
    }

    @Override
    public int size() {
        return messages.size();
    }

    private SerializableString json() {
        if (json == null) {
            try {
                json = new RawJson(LIST.writeValueAsBytes(messages));
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException("a span of messages cannot be written as JSON", e);
            }
        }
        return json;
    }

    static final class Writer extends StdSerializer<MessageSpan> {
        private static final long serialVersionUID = 1L;

        Writer() {
            super(MessageSpan.class);
        }

        @Override
        public void serialize(MessageSpan span, JsonGenerator generator, SerializerProvider provider)
                throws IOException {
            if (generator instanceof UTF8JsonGenerator) {
                generator.writeRawValue(span.json());
            } else {
                // Text (and token buffers) escape characters outside the BMP differently: written as any list.
                provider.findValueSerializer(
                                provider.getTypeFactory().constructCollectionType(List.class, Message.class))
                        .serialize(span.messages, generator, provider);
            }
        }
    }

    /**
     * JSON already written as UTF-8 by the same mapper, copied as it is into a UTF-8 generator's
     * output. Only the unquoted UTF-8 forms are used; the text forms decode it.
     */
    private record RawJson(byte[] utf8) implements SerializableString {
        @Override
        public String getValue() {
            return new String(utf8, StandardCharsets.UTF_8);
        }

        @Override
        public int charLength() {
            return getValue().length();
        }

        @Override
        public char[] asQuotedChars() {
            throw new UnsupportedOperationException("raw JSON is never quoted");
        }

        @Override
        public byte[] asUnquotedUTF8() {
            return utf8.clone();
        }

        @Override
        public byte[] asQuotedUTF8() {
            throw new UnsupportedOperationException("raw JSON is never quoted");
        }

        @Override
        public int appendQuotedUTF8(byte[] buffer, int offset) {
            throw new UnsupportedOperationException("raw JSON is never quoted");
        }

        @Override
        public int appendQuoted(char[] buffer, int offset) {
            throw new UnsupportedOperationException("raw JSON is never quoted");
        }

        @Override
        public int appendUnquotedUTF8(byte[] buffer, int offset) {
            if (offset + utf8.length > buffer.length) {
                return -1;
            }
            System.arraycopy(utf8, 0, buffer, offset, utf8.length);
            return utf8.length;
        }

        @Override
        public int appendUnquoted(char[] buffer, int offset) {
            return -1;
        }

        @Override
        public int writeQuotedUTF8(OutputStream out) {
            throw new UnsupportedOperationException("raw JSON is never quoted");
        }

        @Override
        public int writeUnquotedUTF8(OutputStream out) throws IOException {
            out.write(utf8);
            return utf8.length;
        }

        @Override
        public int putQuotedUTF8(ByteBuffer buffer) {
            throw new UnsupportedOperationException("raw JSON is never quoted");
        }

        @Override
        public int putUnquotedUTF8(ByteBuffer out) {
            if (out.remaining() < utf8.length) {
                return -1;
            }
            out.put(utf8);
            return utf8.length;
        }
    }
}
