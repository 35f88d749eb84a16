package io.reme.session;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.common.errors.SerializationException;

/**
 * The primitives of the session stores' binary value formats: big-endian numbers, strings as an int
 * length (-1 for null) and their UTF-8 bytes, instants as a presence byte, seconds and nanoseconds.
 */
final class BinaryForm {
    private BinaryForm() {}

    /** A growable buffer, sized up front by the caller's guess so a large string is copied into it once. */
    static final class Writer {
        private byte[] buf;
        private int pos;

        Writer(int capacity) {
            buf = new byte[Math.max(16, capacity)];
        }

        void writeByte(int b) {
            ensure(1);
            buf[pos++] = (byte) b;
        }

        void writeBoolean(boolean b) {
            writeByte(b ? 1 : 0);
        }

        void writeInt(int v) {
            ensure(4);
            buf[pos++] = (byte) (v >>> 24);
            buf[pos++] = (byte) (v >>> 16);
            buf[pos++] = (byte) (v >>> 8);
            buf[pos++] = (byte) v;
        }

        void writeLong(long v) {
            writeInt((int) (v >>> 32));
            writeInt((int) v);
        }

        void writeString(String s) {
            if (s == null) {
                writeInt(-1);
                return;
            }
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            writeInt(utf8.length);
            ensure(utf8.length);
            System.arraycopy(utf8, 0, buf, pos, utf8.length);
            pos += utf8.length;
        }

        void writeInstant(Instant t) {
            writeBoolean(t != null);
            if (t != null) {
                writeLong(t.getEpochSecond());
                writeInt(t.getNano());
            }
        }

        private void ensure(int more) {
            if (pos + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
            }
        }

        byte[] bytes() {
            return pos == buf.length ? buf : Arrays.copyOf(buf, pos);
        }
    }

    /** Reads what {@link Writer} wrote, after the version byte; running past the end is an error. */
    static final class Reader {
        private final byte[] buf;
        private int pos = 1;

        Reader(byte[] buf) {
            this.buf = buf;
        }

        byte readByte() {
            return buf[pos++];
        }

        boolean readBoolean() {
            return readByte() != 0;
        }

        int readInt() {
            int v = ((buf[pos] & 0xff) << 24)
                    | ((buf[pos + 1] & 0xff) << 16)
                    | ((buf[pos + 2] & 0xff) << 8)
                    | (buf[pos + 3] & 0xff);
            pos += 4;
            return v;
        }

        long readLong() {
            return ((long) readInt() << 32) | (readInt() & 0xffffffffL);
        }

        String readString() {
            int length = readInt();
            if (length < 0) {
                return null;
            }
            if (length > buf.length - pos) {
                throw new SerializationException("string runs past the end of the value");
            }
            String s = new String(buf, pos, length, StandardCharsets.UTF_8);
            pos += length;
            return s;
        }

        Instant readInstant() {
            return readBoolean() ? Instant.ofEpochSecond(readLong(), readInt()) : null;
        }

        void end() {
            if (pos != buf.length) {
                throw new SerializationException("trailing bytes after the value");
            }
        }
    }
}
