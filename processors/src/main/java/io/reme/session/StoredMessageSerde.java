package io.reme.session;

import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The session message store's value format: a version byte, then the fields in a fixed order with
 * length-prefixed UTF-8 strings. Every live message is written once to the store and its changelog
 * and read back whenever a window is planned or an output aged; JSON (escaping every character of a
 * 100 KB tool output, then parsing it back) cost more than counting its tokens. The JSON form
 * written before this format is still read (it starts with an opening brace), so existing stores and
 * changelogs restore.
 */
public final class StoredMessageSerde implements Serde<StoredMessage> {
    /** The first byte of the binary form; JSON starts with an opening brace. */
    static final byte VERSION_1 = 1;

    private static final byte TEXT = 1;
    private static final byte THINKING = 2;
    private static final byte TOOL_USE = 3;
    private static final byte TOOL_RESULT = 4;
    private static final byte IMAGE = 5;

    @Override
    public Serializer<StoredMessage> serializer() {
        return (topic, value) -> value == null ? null : write(value);
    }

    @Override
    public Deserializer<StoredMessage> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                if (bytes.length > 0 && bytes[0] == '{') {
                    return Json.MAPPER.readValue(bytes, StoredMessage.class);
                }
                if (bytes.length > 0 && bytes[0] == VERSION_1) {
                    return read(new BinaryForm.Reader(bytes));
                }
                throw new SerializationException(
                        "unknown stored message format " + (bytes.length == 0 ? "" : bytes[0]));
            } catch (IOException | RuntimeException e) {
                if (e instanceof SerializationException s) {
                    throw s;
                }
                throw new SerializationException("cannot read a stored message from " + topic, e);
            }
        };
    }

    static byte[] write(StoredMessage stored) {
        BinaryForm.Writer out = new BinaryForm.Writer(estimate(stored.message()));
        out.writeByte(VERSION_1);
        out.writeLong(stored.seq());
        out.writeInt(stored.tokens());
        Message message = stored.message();
        out.writeString(message.tenant());
        out.writeString(message.session());
        out.writeString(message.user());
        out.writeString(message.id());
        out.writeByte(roleCode(message.role()));
        out.writeString(message.name());
        Instant time = message.time();
        out.writeLong(time.getEpochSecond());
        out.writeInt(time.getNano());
        out.writeInt(message.content().size());
        for (Block block : message.content()) {
            switch (block) {
                case Block.Text text -> {
                    out.writeByte(TEXT);
                    out.writeString(text.text());
                }
                case Block.Thinking thinking -> {
                    out.writeByte(THINKING);
                    out.writeString(thinking.thinking());
                }
                case Block.ToolUse use -> {
                    out.writeByte(TOOL_USE);
                    out.writeString(use.id());
                    out.writeString(use.name());
                    out.writeString(use.input());
                }
                case Block.ToolResult result -> {
                    out.writeByte(TOOL_RESULT);
                    out.writeString(result.id());
                    out.writeString(result.name());
                    out.writeString(result.output());
                }
                case Block.Image image -> {
                    out.writeByte(IMAGE);
                    out.writeString(image.url());
                    out.writeString(image.mediaType());
                    out.writeString(image.data());
                }
            }
        }
        return out.bytes();
    }

    /** A first guess at the size, so a large output is copied into the buffer once, not grown into. */
    private static int estimate(Message message) {
        int size = 128;
        for (Block block : message.content()) {
            size += 16
                    + switch (block) {
                        case Block.Text text -> text.text().length();
                        case Block.Thinking thinking -> thinking.thinking().length();
                        case Block.ToolUse use ->
                            use.id().length()
                                    + use.name().length()
                                    + use.input().length();
                        case Block.ToolResult result ->
                            result.id().length()
                                    + result.name().length()
                                    + result.output().length();
                        case Block.Image image ->
                            image.data() == null ? 256 : image.data().length();
                    };
        }
        return size;
    }

    /** A role's code in the stored form: fixed here, whatever order the enum declares its values in. */
    private static byte roleCode(Role role) {
        return switch (role) {
            case USER -> 0;
            case ASSISTANT -> 1;
            case SYSTEM -> 2;
            case TOOL -> 3;
        };
    }

    private static Role role(byte code) {
        return switch (code) {
            case 0 -> Role.USER;
            case 1 -> Role.ASSISTANT;
            case 2 -> Role.SYSTEM;
            case 3 -> Role.TOOL;
            default -> throw new IllegalArgumentException("unknown role code " + code);
        };
    }

    private static StoredMessage read(BinaryForm.Reader in) {
        long seq = in.readLong();
        int tokens = in.readInt();
        String tenant = in.readString();
        String session = in.readString();
        String user = in.readString();
        String id = in.readString();
        Role role = role(in.readByte());
        String name = in.readString();
        Instant time = Instant.ofEpochSecond(in.readLong(), in.readInt());
        int count = in.readInt();
        List<Block> content = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            byte type = in.readByte();
            content.add(
                    switch (type) {
                        case TEXT -> new Block.Text(in.readString());
                        case THINKING -> new Block.Thinking(in.readString());
                        case TOOL_USE -> new Block.ToolUse(in.readString(), in.readString(), in.readString());
                        case TOOL_RESULT -> new Block.ToolResult(in.readString(), in.readString(), in.readString());
                        case IMAGE -> new Block.Image(in.readString(), in.readString(), in.readString());
                        default -> throw new SerializationException("unknown block type " + type);
                    });
        }
        in.end();
        return new StoredMessage(seq, tokens, new Message(tenant, session, user, id, role, name, time, content));
    }
}
