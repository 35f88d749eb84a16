package io.reme.embedding;

import io.reme.search.EmbeddingProfile;
import java.lang.Character.UnicodeScript;
import java.util.List;
import java.util.Objects;

/**
 * Two models, one per language: Chinese texts go to the Chinese model, every other text to the main one
 * ({@link #modelFor}). Each memory is embedded by the model of its text's script, and each query by the
 * model of its own, so a Chinese question meets Chinese memories in the Chinese model's space and an
 * English one English memories in the English model's; the index keeps each model's vectors in fields of
 * their own, so the two spaces are never compared (docs/architecture.md).
 *
 * <p>As an {@link EmbeddingModel} of its own it is the main model: {@link #id()}, {@link #embed(List)} and
 * {@link #embedQuery} are the main model's, so a caller that does not route gets what it got before.
 * Closing it closes both models.
 */
public final class LanguageRoutedEmbeddingModel implements EmbeddingModel {
    private final EmbeddingModel main;
    private final EmbeddingModel chinese;

    /** Routes Chinese texts to {@code chinese}, the rest to {@code main}; takes ownership of both. */
    public LanguageRoutedEmbeddingModel(EmbeddingModel main, EmbeddingModel chinese) {
        this.main = Objects.requireNonNull(main, "main");
        this.chinese = Objects.requireNonNull(chinese, "chinese");
        if (main.id().equals(chinese.id())) {
            throw new IllegalArgumentException("both languages would use " + main.id());
        }
    }

    /** The Chinese model for a {@linkplain #isChinese Chinese} text, the main model for any other. */
    @Override
    public EmbeddingModel modelFor(String text) {
        return isChinese(text) ? chinese : main;
    }

    /**
     * Whether a text reads as Chinese: it holds at least as many Han characters as words in other scripts,
     * and more Han characters than kana and Hangul (Japanese and Korean). A Han character is counted
     * against a whole word because one or two of them make a Chinese word: "我用Python写了一个Kafka程序"
     * is Chinese with English names in it, "I met 王小明 in Beijing" English with a Chinese name.
     * Digits, punctuation and symbols count for neither; a text with none of both is not Chinese.
     */
    public static boolean isChinese(String text) {
        if (text == null) {
            return false;
        }
        int han = 0;
        int kanaOrHangul = 0;
        int words = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            UnicodeScript script = Character.UnicodeScript.of(c);
            boolean otherLetter = false;
            switch (script) {
                case HAN -> han++;
                case HIRAGANA, KATAKANA, HANGUL -> kanaOrHangul++;
                default -> otherLetter = Character.isLetter(c);
            }
            if (otherLetter && !inWord) {
                words++;
            }
            inWord = otherLetter;
        }
        return han > 0 && han >= words && han > kanaOrHangul;
    }

    /** The model of texts that are not Chinese, whose id and vectors this model's own are. */
    public EmbeddingModel main() {
        return main;
    }

    public EmbeddingModel chinese() {
        return chinese;
    }

    @Override
    public String id() {
        return main.id();
    }

    /** The main model's id, then {@value EmbeddingProfile#CHINESE} and the Chinese model's. */
    @Override
    public String profile() {
        return EmbeddingProfile.of(main.id(), chinese.id());
    }

    @Override
    public int dimensions() {
        return main.dimensions();
    }

    @Override
    public List<float[]> embed(List<String> texts) throws EmbeddingException {
        return main.embed(texts);
    }

    @Override
    public float[] embedQuery(String query) throws EmbeddingException {
        return main.embedQuery(query);
    }

    @Override
    public void close() {
        try {
            main.close();
        } finally {
            chinese.close();
        }
    }

    @Override
    public String toString() {
        return "LanguageRoutedEmbeddingModel[" + main + ", Chinese: " + chinese + "]";
    }
}
