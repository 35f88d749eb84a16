package io.reme.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fast instant reader agrees with Jackson's formatter-based one on every input, valid or not. */
class UtcInstantDeserializerTest {
    /** Jackson's own reading of instants, the reference. */
    private static final ObjectMapper REFERENCE =
            JsonMapper.builder().addModule(new JavaTimeModule()).build();

    private static final long MAX_SECOND = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    private static final long MIN_SECOND = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    private static final String MUTATIONS = "0123456789-:.TZtz+ 6";

    @Test
    void theMapperReadsInstantsWithIt() throws Exception {
        DefaultDeserializationContext context = ((DefaultDeserializationContext)
                        Json.MAPPER.getDeserializationContext())
                .createInstance(Json.MAPPER.getDeserializationConfig(), null, null);
        assertInstanceOf(
                UtcInstantDeserializer.class,
                context.findRootValueDeserializer(Json.MAPPER.constructType(Instant.class)));
    }

    @Test
    void everyInstantAsWrittenReadsBackTheSame() throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            Instant instant = Instant.ofEpochSecond(
                    MIN_SECOND + (long) (random.nextDouble() * (MAX_SECOND - MIN_SECOND)), nanos(random));
            String text = instant.toString();
            assertEquals(instant, UtcInstantDeserializer.parse(text), text);
            assertEquals(instant, Json.MAPPER.readValue(quoted(text), Instant.class), text);
        }
    }

    @Test
    void alteredTextIsReadAsJacksonWouldOrRefusedAsItWould() {
        Random random = new Random(7);
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            StringBuilder text =
                    new StringBuilder(Instant.ofEpochSecond(random.nextInt(Integer.MAX_VALUE), nanos(random))
                            .toString());
            for (int edits = 1 + random.nextInt(2); edits > 0 && text.length() > 0; edits--) {
                int at = random.nextInt(text.length());
                char c = MUTATIONS.charAt(random.nextInt(MUTATIONS.length()));
                switch (random.nextInt(3)) {
                    case 0 -> text.setCharAt(at, c);
                    case 1 -> text.insert(at, c);
                    default -> text.deleteCharAt(at);
                }
            }
            String json = quoted(text.toString());
            Object expected = read(REFERENCE, json);
            assertEquals(expected, read(Json.MAPPER, json), json);
            if (expected instanceof Instant) {
                accepted++;
            }
        }
        // Both outcomes must be exercised for the comparison to mean anything.
        assertEquals(true, accepted > 2_000 && accepted < 18_000, "accepted " + accepted);
    }

    @Test
    void formsLeftToJackson() throws Exception {
        for (String text : new String[] {
            "2024-03-01T10:00:00+01:00",
            "+10000-01-01T00:00:00Z",
            "2024-02-30T00:00:00Z",
            "2024-03-01T10:00:60Z",
            "2024-03-01t10:00:00z",
            "2024-03-01T10:00:00.Z",
            "2024-03-01T10:00:00.1234567890Z"
        }) {
            assertNull(UtcInstantDeserializer.parse(text), text);
            assertEquals(read(REFERENCE, quoted(text)), read(Json.MAPPER, quoted(text)), text);
        }
        assertEquals(
                Instant.ofEpochSecond(1_700_000_000L, 500_000_000),
                Json.MAPPER.readValue("1700000000.5", Instant.class));
    }

    private static int nanos(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1000;
            default -> random.nextInt(1_000_000_000);
        };
    }

    /** The instant read, or the kind of error: the two mappers must agree on which. */
    private static Object read(ObjectMapper mapper, String json) {
        try {
            return mapper.readValue(json, Instant.class);
        } catch (Exception e) {
            return "error";
        }
    }

    private static String quoted(String text) {
        return "\"" + text + "\"";
    }
}
