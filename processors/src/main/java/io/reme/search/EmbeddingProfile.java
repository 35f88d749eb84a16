package io.reme.search;

import java.util.List;

/**
 * The names of embedding profiles: what decides which model embeds a text. A profile is one model's id, or a main
 * model's id, {@value #CHINESE} and the id of the model Chinese texts go to. The memory index records the profile
 * its searches use ({@link MemoryIndex#embeddingProfile()}) and compares a query vector only with vectors of a model
 * of that profile.
 */
public final class EmbeddingProfile {
    /** What separates the main model's id from the Chinese model's. */
    public static final String CHINESE = "+zh:";

    private EmbeddingProfile() {}

    /** The profile of a main model alone, or of a main model and a Chinese one ({@code chinese} not null). */
    public static String of(String main, String chinese) {
        return chinese == null ? main : main + CHINESE + chinese;
    }

    /** The ids of the profile's models, the main one first. */
    public static List<String> models(String profile) {
        int routed = profile.indexOf(CHINESE);
        return routed < 0
                ? List.of(profile)
                : List.of(profile.substring(0, routed), profile.substring(routed + CHINESE.length()));
    }
}
