package io.reme.embedding;

import io.reme.search.SearchQuery.ProfileVector;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The models that embed search queries: the configured one, and during a change of model those of the profiles
 * memory indexes still search with until they switch (loaded on first need and kept; closed with this, the
 * configured model is its owner's). A query is embedded once per model its text goes to under those profiles: when
 * Chinese is added, an English query goes to the same English model under both, and is embedded once.
 */
public final class ProfileModels implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileModels.class);

    /** Loads the models of a profile; empty when they cannot be loaded here. */
    public interface Loader {
        Optional<EmbeddingModel> load(String profile) throws EmbeddingException;
    }

    private final EmbeddingModel configured;
    private final Loader loader;
    private final Map<String, Optional<EmbeddingModel>> loaded = new ConcurrentHashMap<>();

    public ProfileModels(EmbeddingModel configured, Loader loader) {
        this.configured = Objects.requireNonNull(configured, "configured");
        this.loader = Objects.requireNonNull(loader, "loader");
    }

    /** The local models this build ships, for profiles recorded before a change of model. */
    public static ProfileModels local(EmbeddingModel configured) {
        return new ProfileModels(configured, EmbeddingProfiles::loadLocal);
    }

    public EmbeddingModel configured() {
        return configured;
    }

    /** The models of {@code profile}: the configured one, one loaded before, or loaded now; null if it cannot be. */
    public EmbeddingModel forProfile(String profile) {
        if (profile.equals(configured.profile())) {
            return configured;
        }
        return loaded.computeIfAbsent(profile, p -> {
                    try {
                        Optional<EmbeddingModel> model = loader.load(p);
                        LOG.info(
                                "embedding profile of an index not switched yet profile={} loaded={}",
                                p,
                                model.isPresent());
                        return model;
                    } catch (EmbeddingException | RuntimeException e) {
                        LOG.warn("cannot load the models of embedding profile={} error={}", p, e.toString());
                        return Optional.empty();
                    }
                })
                .orElse(null);
    }

    /**
     * The query's vector under the configured profile and each of {@code profiles} that can be loaded, by profile;
     * each distinct model embeds it once.
     */
    public Map<String, ProfileVector> embedQuery(String text, Collection<String> profiles) throws EmbeddingException {
        Map<String, ProfileVector> out = new LinkedHashMap<>();
        Map<String, float[]> byModel = new HashMap<>();
        out.put(configured.profile(), vector(configured.modelFor(text), text, byModel));
        for (String profile : profiles) {
            EmbeddingModel model = out.containsKey(profile) ? null : forProfile(profile);
            if (model != null) {
                out.put(profile, vector(model.modelFor(text), text, byModel));
            }
        }
        return out;
    }

    private static ProfileVector vector(EmbeddingModel model, String text, Map<String, float[]> byModel)
            throws EmbeddingException {
        float[] vector = byModel.get(model.id());
        if (vector == null) {
            vector = model.embedQuery(text);
            byModel.put(model.id(), vector);
        }
        return new ProfileVector(model.id(), vector);
    }

    @Override
    public void close() {
        loaded.values().forEach(model -> model.ifPresent(EmbeddingModel::close));
        loaded.clear();
    }
}
