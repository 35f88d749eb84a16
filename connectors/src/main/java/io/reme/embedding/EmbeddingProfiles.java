package io.reme.embedding;

import io.reme.embedding.LocalOnnxEmbeddingModel.Variant;
import io.reme.search.EmbeddingProfile;
import java.util.List;
import java.util.Optional;

/**
 * Embedding profiles ({@link EmbeddingModel#profile()}) read back into models: an index that has not switched to
 * the configured profile yet still searches with the profile it recorded, and its queries must be embedded by that
 * profile's models. Only the local models this build ships can be loaded again; another provider, or a local model
 * of another version, cannot, and an index still on such a profile answers on text alone until it switches.
 */
public final class EmbeddingProfiles {
    private EmbeddingProfiles() {}

    /** The local model, or the pair routed by script, of {@code profile}; empty if this build cannot load it. */
    public static Optional<EmbeddingModel> loadLocal(String profile) throws EmbeddingException {
        List<String> ids = EmbeddingProfile.models(profile);
        Optional<Variant> main = variantOf(ids.get(0));
        Optional<Variant> chinese = ids.size() < 2 ? Optional.empty() : variantOf(ids.get(1));
        if (main.isEmpty() || (ids.size() > 1 && chinese.isEmpty())) {
            return Optional.empty();
        }
        EmbeddingModel mainModel =
                LocalOnnxEmbeddingModel.builder().variant(main.get()).build();
        if (chinese.isEmpty()) {
            return Optional.of(mainModel);
        }
        try {
            return Optional.of(new LanguageRoutedEmbeddingModel(
                    mainModel,
                    LocalOnnxEmbeddingModel.builder().variant(chinese.get()).build()));
        } catch (EmbeddingException | RuntimeException e) {
            mainModel.close();
            throw e;
        }
    }

    /** The local variant whose id ({@code name@version}) is {@code id}. */
    static Optional<Variant> variantOf(String id) {
        for (Variant variant : Variant.values()) {
            if (id.equals(variant.modelName() + "@" + ModelFiles.artifactVersion(variant))) {
                return Optional.of(variant);
            }
        }
        return Optional.empty();
    }
}
