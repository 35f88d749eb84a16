package io.reme.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Reads instants in the form this service writes them ({@link Instant#toString()}: {@code
 * 2024-03-01T10:00:00Z}, {@code 2024-03-01T10:00:00.123Z}) without {@link java.time.format.DateTimeFormatter},
 * and hands everything else to Jackson's own {@link InstantDeserializer}, errors included.
 *
 * <p>Why: formatter-based parsing was more than half of the time spent reading a memory record from
 * JSON, and a search reads one per hit (docs/benchmarks.md). The fast form gives the same instant
 * as the formatter for every input it accepts (a property test compares the two).
 */
final class UtcInstantDeserializer extends StdScalarDeserializer<Instant> {
    private static final long serialVersionUID = 1L;
    private static final int SECONDS_PER_DAY = 86_400;

    UtcInstantDeserializer() {
        super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.hasToken(JsonToken.VALUE_STRING)) {
            Instant fast = parse(p.getText());
            if (fast != null) {
                return fast;
            }
        }
        return InstantDeserializer.INSTANT.deserialize(p, ctxt);
    }

    /**
     * {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} with a four-digit year, as an instant; null for any other
     * text, valid or not (leap seconds, offsets, signed years and lower-case letters included).
     */
    static Instant parse(String s) {
        int n = s.length();
        if (n < 20
                || n > 30
                || s.charAt(n - 1) != 'Z'
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0
                || month < 0
                || day < 0
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59) {
            return null;
        }
        int nanos = 0;
        if (n > 20) {
            int fraction = n - 21;
            if (s.charAt(19) != '.' || fraction < 1 || fraction > 9) {
                return null;
            }
            nanos = digits(s, 20, fraction);
            if (nanos < 0) {
                return null;
            }
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return null;
        }
        return Instant.ofEpochSecond(epochDay * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second, nanos);
    }

    /** The decimal value of {@code count} ASCII digits at {@code from}, or -1 if any is not a digit. */
    private static int digits(String s, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
