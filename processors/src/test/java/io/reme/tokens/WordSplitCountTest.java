package io.reme.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The counter cuts text into words and remembers their counts; the total must equal the encoding's
 * own count of the whole text, for every encoding, on text built to sit on the cut's edges:
 * contractions, case changes, combining marks, digits, punctuation runs, runs of spaces, newlines,
 * scripts without spaces and characters outside the BMP.
 */
class WordSplitCountTest {
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();
    private static final String[] PARTS = {
        "a",
        "b",
        "Z",
        "word",
        "Word",
        "WORD",
        "wOrD",
        "it's",
        "IT'S",
        "don't",
        "we're",
        "they'll",
        "I'd",
        "'s",
        "'S",
        "'ll",
        "'",
        "’",
        " ",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\r\n",
        "\n\n",
        " \n",
        ".",
        ",",
        "!?",
        "...",
        "--",
        "/",
        "//",
        "(",
        ")",
        "{\"k\": 1}",
        "0",
        "7",
        "12",
        "1234",
        "99999",
        "3.14",
        "é",
        "e\u0301",
        "\u0301",
        "ß",
        "Ärger",
        "naïve",
        "Ωμέγα",
        "日本語",
        "テキスト",
        "中文",
        "한국어",
        "😀",
        "👍🏽",
        "x\u200Bz",
        "_",
        "-",
        "CamelCase",
        "snake_case",
        "kebab-case",
        "<|endoftext|>",
        "A",
        "i",
        "s",
        "t",
        "re",
        "ve",
        "m",
        "ll",
        "d",
    };

    @ParameterizedTest
    @EnumSource(EncodingType.class)
    @SuppressWarnings("EnumOrdinal") // a seed per encoding: any stable number will do
    void theCountOfTheWordsIsTheCountOfTheText(EncodingType type) {
        Encoding encoding = REGISTRY.getEncoding(type);
        TokenCounter counter = new TokenCounter(encoding, 0);
        Random random = new Random(type.ordinal() * 7919L);
        for (int n = 0; n < 4000; n++) {
            StringBuilder text = new StringBuilder();
            int parts = random.nextInt(40);
            for (int p = 0; p < parts; p++) {
                // Lean on letter-space-letter, where the counter cuts.
                text.append(random.nextInt(3) == 0 ? " " : PARTS[random.nextInt(PARTS.length)]);
            }
            String s = text.toString();
            assertEquals(encoding.countTokensOrdinary(s), counter.count(s), () -> type + " differs on [" + s + "]");
            assertEquals(
                    encoding.countTokensOrdinary(s),
                    counter.count(s),
                    () -> type + " differs, remembered, on [" + s + "]");
        }
    }

    @ParameterizedTest
    @EnumSource(EncodingType.class)
    void longProseAndCodeCountTheSame(EncodingType type) {
        Encoding encoding = REGISTRY.getEncoding(type);
        TokenCounter counter = new TokenCounter(encoding, 0);
        String prose = ("The consumer group rebalanced twice; it's the third time today. Offsets 104211-104299 "
                        + "weren't committed, so we'll retry with max.poll.interval.ms=300000 and see what happens.\n")
                .repeat(50);
        String code =
                ("    public int count(String text) {\n        return text == null ? 0 : words.get(text);\n    }\n")
                        .repeat(40);
        assertEquals(encoding.countTokensOrdinary(prose), counter.count(prose));
        assertEquals(encoding.countTokensOrdinary(code), counter.count(code));
        assertEquals(encoding.countTokensOrdinary(prose + code), counter.count(prose + code));
    }
}
