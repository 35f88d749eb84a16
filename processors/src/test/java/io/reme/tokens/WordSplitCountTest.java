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
 * scripts without spaces, full-width punctuation and characters outside the BMP.
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
        "我们",
        "。",
        "！",
        "？",
        "，",
        "、",
        "“",
        "”",
        "「",
        "」",
        "（",
        "１２",
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

    /**
     * A tool output's cut form (its first characters, then a notice) is counted from the counts
     * remembered while counting the output: the same count as the encoding's, wherever the cut falls,
     * and for a text that shares only part of the remembered head, or none of it.
     */
    @ParameterizedTest
    @EnumSource(EncodingType.class)
    @SuppressWarnings("EnumOrdinal") // a seed per encoding: any stable number will do
    void aTextCountedFromARememberedPrefixCountsTheSame(EncodingType type) {
        Encoding encoding = REGISTRY.getEncoding(type);
        TokenCounter counter = new TokenCounter(encoding, 0);
        Random random = new Random(type.ordinal() * 104729L);
        for (int n = 0; n < 1500; n++) {
            String original = text(random, 20 + random.nextInt(400));
            int maxChars = 2 + random.nextInt(original.length() + 10);
            TokenCounter.Counted counted = counter.countRemembering(original, maxChars);
            assertEquals(
                    encoding.countTokensOrdinary(original), counted.tokens(), () -> type + " on [" + original + "]");
            int cut = random.nextInt(original.length() + 1);
            if (cut > 0 && cut < original.length() && Character.isLowSurrogate(original.charAt(cut))) {
                cut--; // as the truncator cuts: never inside a surrogate pair
            }
            String derived = switch (random.nextInt(3)) {
                case 0 -> original.substring(0, cut) + "\n<<<TRUNCATED>>>\nTool output truncated " + cut;
                case 1 -> original.substring(0, cut) + text(random, random.nextInt(10));
                default -> text(random, random.nextInt(40)) + original.substring(0, cut);
            };
            assertEquals(
                    encoding.countTokensOrdinary(derived),
                    counter.count(derived, counted.prefix()),
                    () -> type + " differs on [" + derived + "] from [" + original + "]");
        }
    }

    private static String text(Random random, int parts) {
        StringBuilder text = new StringBuilder();
        for (int p = 0; p < parts; p++) {
            text.append(random.nextInt(3) == 0 ? " " : PARTS[random.nextInt(PARTS.length)]);
        }
        return text.toString();
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
