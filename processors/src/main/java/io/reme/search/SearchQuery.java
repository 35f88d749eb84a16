package io.reme.search;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A search over one tenant's memories. The tenant is required: no query runs without it.
 *
 * <ul>
 *   <li>{@code text} runs BM25 over the English and CJK text fields; {@code vector} runs kNN. At
 *       least one of them is required; with both, the lists are fused with {@code fusion}.</li>
 *   <li>{@code k}: hits to return, 1..{@value #MAX_K}; 0 means {@value #DEFAULT_K}.</li>
 *   <li>{@code types}, {@code users}, {@code sessions}: exact filters, empty means any; within a
 *       set the values are alternatives.</li>
 *   <li>{@code from} (inclusive) and {@code to} (exclusive) bound {@link MemoryRecord#effectiveTime()};
 *       a bound set excludes records with no time.</li>
 *   <li>{@code minScore}: threshold in [0, 1] on the fused score, see {@link HybridFusion}; 0 keeps all.</li>
 *   <li>{@code targets}: exact filter on {@link MemoryRecord#target()}, empty means any.</li>
 *   <li>{@code vectorModel}: the model that made {@code vector}; kNN then compares it only with
 *       vectors that model made ({@link MemoryRecord#vectorModel()}), since vectors of two models
 *       live in different spaces even when their lengths agree. Null compares with all.</li>
 *   <li>{@code byProfile}: during a change of embedding model, the query's vector under each embedding
 *       profile in use (the model that profile routes the text to, and its vector); an index searches with
 *       the one of the profile it has switched to ({@link #forProfile}), so a task never compares a query
 *       vector with another model's vectors whichever side of the switch it is on.</li>
 *   <li>{@code breadth}: the k whose candidate lists are asked ({@link #candidates}), when fewer than {@code k}: a
 *       retrieval reads its lists deeper than the hits it answers (for the standing instructions) without
 *       asking the index for more candidates. 0 means {@code k}.</li>
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SearchQuery(
        String tenant,
        String text,
        float[] vector,
        int k,
        Set<MemoryType> types,
        Set<String> users,
        Set<String> sessions,
        Instant from,
        Instant to,
        double minScore,
        FusionMode fusion,
        Set<String> targets,
        String vectorModel,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, ProfileVector> byProfile,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int breadth) {

    /** The query's vector under one embedding profile: the model the profile routes the text to, and its vector. */
    public record ProfileVector(String model, float[] vector) {
        public ProfileVector {
            Objects.requireNonNull(model, "model");
            vector = vector.clone();
            MemoryRecord.checkVector("profile vector", vector);
        }

        @Override
        public float[] vector() {
            return vector.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ProfileVector v && model.equals(v.model) && Arrays.equals(vector, v.vector);
        }

        @Override
        public int hashCode() {
            return Objects.hash(model, Arrays.hashCode(vector));
        }

        @Override
        public String toString() {
            return "ProfileVector[model=" + model + ", vector=float[" + vector.length + "]]";
        }
    }

    public static final int DEFAULT_K = 10;
    public static final int MAX_K = 1000;

    public SearchQuery {
        SafeId.require("tenant", tenant);
        text = text == null ? "" : text;
        if (vector != null) {
            vector = vector.clone();
            MemoryRecord.checkVector("query vector", vector);
        }
        if (text.isBlank() && vector == null) {
            throw new IllegalArgumentException("a search needs text or a vector");
        }
        if (k == 0) {
            k = DEFAULT_K;
        }
        if (k < 1 || k > MAX_K) {
            throw new IllegalArgumentException("k must be in [1, " + MAX_K + "] (got " + k + ")");
        }
        types = types == null ? Set.of() : Set.copyOf(types);
        users = users == null ? Set.of() : Set.copyOf(new TreeSet<>(users));
        sessions = sessions == null ? Set.of() : Set.copyOf(new TreeSet<>(sessions));
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("from must be before to");
        }
        if (!(minScore >= 0 && minScore <= 1)) {
            throw new IllegalArgumentException("minScore must be in [0, 1] (got " + minScore + ")");
        }
        // Rank and score is the default: on the LoCoMo evaluation it beat RRF alone at 1 at every context
        // width (RRF had matched weighted fusion at k <= 10 and beaten it at 25 and 50; docs/evaluation.md).
        fusion = fusion == null ? FusionMode.RANK_AND_SCORE : fusion;
        targets = targets == null ? Set.of() : Set.copyOf(new TreeSet<>(targets));
        byProfile = byProfile == null ? Map.of() : Map.copyOf(byProfile);
        if (breadth < 0 || breadth > MAX_K) {
            throw new IllegalArgumentException("breadth must be in [0, " + MAX_K + "] (got " + breadth + ")");
        }
    }

    /** A query with its vector, if any, under one profile only. */
    public SearchQuery(
            String tenant,
            String text,
            float[] vector,
            int k,
            Set<MemoryType> types,
            Set<String> users,
            Set<String> sessions,
            Instant from,
            Instant to,
            double minScore,
            FusionMode fusion,
            Set<String> targets,
            String vectorModel) {
        this(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                Map.of(),
                0);
    }

    /** A query without a target filter. */
    public SearchQuery(
            String tenant,
            String text,
            float[] vector,
            int k,
            Set<MemoryType> types,
            Set<String> users,
            Set<String> sessions,
            Instant from,
            Instant to,
            double minScore,
            FusionMode fusion) {
        this(tenant, text, vector, k, types, users, sessions, from, to, minScore, fusion, Set.of(), null);
    }

    /** A query whose vector, if any, may be compared with vectors of any model. */
    public SearchQuery(
            String tenant,
            String text,
            float[] vector,
            int k,
            Set<MemoryType> types,
            Set<String> users,
            Set<String> sessions,
            Instant from,
            Instant to,
            double minScore,
            FusionMode fusion,
            Set<String> targets) {
        this(tenant, text, vector, k, types, users, sessions, from, to, minScore, fusion, targets, null);
    }

    /** A text query with no filters beyond the tenant. */
    public static SearchQuery text(String tenant, String text, int k) {
        return new SearchQuery(tenant, text, null, k, null, null, null, null, null, 0, null);
    }

    /** A vector query with no filters beyond the tenant. */
    public static SearchQuery vector(String tenant, float[] vector, int k) {
        return new SearchQuery(tenant, null, vector, k, null, null, null, null, null, 0, null);
    }

    @Override
    public float[] vector() {
        return vector == null ? null : vector.clone();
    }

    /** The query vector, from a model not named: compared with every memory's vector. */
    public SearchQuery withVector(float[] newVector) {
        return withVector(newVector, null);
    }

    /** The query vector made by {@code model}: only memories whose vectors that model made are its neighbours. */
    public SearchQuery withVector(float[] newVector, String model) {
        // The vectors under each profile were of the old vector's text: they go with it.
        return new SearchQuery(
                tenant, text, newVector, k, types, users, sessions, from, to, minScore, fusion, targets, model,
                Map.of(), breadth);
    }

    public SearchQuery withK(int newK) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                newK,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    public SearchQuery withTypes(Set<MemoryType> newTypes) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                newTypes,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    public SearchQuery withUsers(Set<String> newUsers) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                newUsers,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    public SearchQuery withSessions(Set<String> newSessions) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                newSessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    public SearchQuery withTimeRange(Instant newFrom, Instant newTo) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                newFrom,
                newTo,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    public SearchQuery withMinScore(double newMinScore) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                from,
                to,
                newMinScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    public SearchQuery withTargets(Set<String> newTargets) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                newTargets,
                vectorModel,
                byProfile,
                breadth);
    }

    /** The same query asking the candidates of {@code newBreadth} hits (0: of its k), whatever its k. */
    public SearchQuery withBreadth(int newBreadth) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                newBreadth);
    }

    public SearchQuery withFusion(FusionMode newFusion) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                newFusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    /** The same query carrying its vector under each profile in use ({@link #forProfile}). */
    public SearchQuery withProfiles(Map<String, ProfileVector> newByProfile) {
        return new SearchQuery(
                tenant,
                text,
                vector,
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                newByProfile,
                breadth);
    }

    /**
     * The query an index whose searches use {@code profile} runs: with the vector made under that profile (from
     * {@link #byProfile}, or its own vector if one of the profile's models made it), or on text alone when it
     * carries none (null when it has no text either: nothing to search). A query without a vector, or for an index
     * that never recorded a profile, runs as it is.
     */
    public SearchQuery forProfile(String profile) {
        if (profile == null || vector == null) {
            return this;
        }
        ProfileVector mine = byProfile.get(profile);
        if (mine == null
                && vectorModel != null
                && EmbeddingProfile.models(profile).contains(vectorModel)) {
            // Embedded by one of the profile's own models: comparable with the index's vectors of that model.
            mine = new ProfileVector(vectorModel, vector);
        }
        if (mine == null && text.isBlank()) {
            return null;
        }
        return new SearchQuery(
                tenant,
                text,
                mine == null ? null : mine.vector(),
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                mine == null ? null : mine.model(),
                Map.of(),
                breadth);
    }

    /**
     * Candidates asked from each list: HNSW asked for only k misses neighbours, so ask for more and keep k. Ten
     * times the {@link #breadth} when one is set below k, and never fewer than k.
     */
    public int candidates() {
        int sizing = breadth == 0 ? k : Math.min(k, breadth);
        return Math.max(k, Math.min(10 * MAX_K, Math.max(100, sizing * 10)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SearchQuery q
                && tenant.equals(q.tenant)
                && text.equals(q.text)
                && Arrays.equals(vector, q.vector)
                && k == q.k
                && types.equals(q.types)
                && users.equals(q.users)
                && sessions.equals(q.sessions)
                && Objects.equals(from, q.from)
                && Objects.equals(to, q.to)
                && Double.compare(minScore, q.minScore) == 0
                && fusion == q.fusion
                && targets.equals(q.targets)
                && Objects.equals(vectorModel, q.vectorModel)
                && byProfile.equals(q.byProfile)
                && breadth == q.breadth;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                tenant,
                text,
                Arrays.hashCode(vector),
                k,
                types,
                users,
                sessions,
                from,
                to,
                minScore,
                fusion,
                targets,
                vectorModel,
                byProfile,
                breadth);
    }

    @Override
    public String toString() {
        return "SearchQuery[tenant=" + tenant + ", text=" + text
                + ", vector=" + (vector == null ? "null" : "float[" + vector.length + "]") + ", k=" + k
                + ", types=" + types + ", users=" + users + ", sessions=" + sessions + ", from=" + from
                + ", to=" + to + ", minScore=" + minScore + ", fusion=" + fusion + ", targets=" + targets
                + ", vectorModel=" + vectorModel + ", byProfile=" + byProfile.keySet() + ", breadth=" + breadth + "]";
    }
}
