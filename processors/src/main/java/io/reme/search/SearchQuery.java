package io.reme.search;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A search over one tenant's memories, in three parts: what is looked for ({@code text}, {@code vector}), which
 * memories may be hits ({@link Filter}) and how many and how they are ranked ({@link Ranking}). The tenant is
 * required: no query runs without it. {@code text} runs BM25 over the English and CJK text fields; {@code vector}
 * runs kNN. At least one of them is required; with both, the lists are fused with the ranking's fusion.
 *
 * <p>Instances send a query to one another as one flat JSON object ({@link Wire}), as they always have, so that
 * instances of two versions read each other's.
 *
 * @param vector the query's embedding, or null for a text search
 */
public record SearchQuery(String tenant, String text, Vector vector, Filter filter, Ranking ranking) {
    public static final int DEFAULT_K = 10;
    public static final int MAX_K = 1000;

    /**
     * The query's embedding.
     *
     * @param values the vector
     * @param model the model that made it; kNN then compares it only with vectors that model made
     *     ({@link MemoryRecord#vectorModel()}), since vectors of two models live in different spaces even when their
     *     lengths agree. Null compares with all.
     * @param byProfile during a change of embedding model, the query's vector under each embedding profile in use
     *     (the model that profile routes the text to, and its vector); an index searches with the one of the profile
     *     it has switched to ({@link #forProfile}), so a task never compares a query vector with another model's
     *     vectors whichever side of the switch it is on
     */
    public record Vector(float[] values, String model, Map<String, ProfileVector> byProfile) {
        public Vector {
            values = values.clone();
            MemoryRecord.checkVector("query vector", values);
            byProfile = byProfile == null ? Map.of() : Map.copyOf(byProfile);
        }

        public Vector(float[] values, String model) {
            this(values, model, Map.of());
        }

        @Override
        public float[] values() {
            return values.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Vector v
                    && Arrays.equals(values, v.values)
                    && Objects.equals(model, v.model)
                    && byProfile.equals(v.byProfile);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(values), model, byProfile);
        }

        @Override
        public String toString() {
            return "Vector[float[" + values.length + "], model=" + model + ", byProfile=" + byProfile.keySet() + "]";
        }
    }

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

    /**
     * Which memories may be hits: exact filters, each empty for any (within a set the values are alternatives), and
     * a time range.
     *
     * @param from inclusive bound of {@link MemoryRecord#effectiveTime()}; a bound set excludes records with no time
     * @param to exclusive bound
     * @param targets exact filter on {@link MemoryRecord#target()}
     */
    public record Filter(
            Set<MemoryType> types,
            Set<String> users,
            Set<String> sessions,
            Instant from,
            Instant to,
            Set<String> targets) {
        /** Every memory of the tenant. */
        public static final Filter NONE = new Filter(null, null, null, null, null, null);

        public Filter {
            types = types == null ? Set.of() : Set.copyOf(types);
            users = users == null ? Set.of() : Set.copyOf(new TreeSet<>(users));
            sessions = sessions == null ? Set.of() : Set.copyOf(new TreeSet<>(sessions));
            if (from != null && to != null && !from.isBefore(to)) {
                throw new IllegalArgumentException("from must be before to");
            }
            targets = targets == null ? Set.of() : Set.copyOf(new TreeSet<>(targets));
        }

        public Filter withTypes(Set<MemoryType> newTypes) {
            return new Filter(newTypes, users, sessions, from, to, targets);
        }

        public Filter withUsers(Set<String> newUsers) {
            return new Filter(types, newUsers, sessions, from, to, targets);
        }

        public Filter withSessions(Set<String> newSessions) {
            return new Filter(types, users, newSessions, from, to, targets);
        }

        public Filter withTimeRange(Instant newFrom, Instant newTo) {
            return new Filter(types, users, sessions, newFrom, newTo, targets);
        }

        public Filter withTargets(Set<String> newTargets) {
            return new Filter(types, users, sessions, from, to, newTargets);
        }
    }

    /**
     * How many hits and how they are ranked.
     *
     * @param k hits to return, 1..{@value #MAX_K}; 0 means {@value #DEFAULT_K}
     * @param breadth the k whose candidate lists are asked ({@link #candidates}), when fewer than {@code k}: a
     *     retrieval reads its lists deeper than the hits it answers (for the standing instructions) without asking
     *     the index for more candidates. 0 means {@code k}.
     * @param minScore threshold in [0, 1] on the fused score, see {@link HybridFusion}; 0 keeps all
     * @param fusion how the text and vector lists are fused; null for the default
     */
    public record Ranking(int k, int breadth, double minScore, FusionMode fusion) {
        public Ranking {
            if (k == 0) {
                k = DEFAULT_K;
            }
            if (k < 1 || k > MAX_K) {
                throw new IllegalArgumentException("k must be in [1, " + MAX_K + "] (got " + k + ")");
            }
            if (breadth < 0 || breadth > MAX_K) {
                throw new IllegalArgumentException("breadth must be in [0, " + MAX_K + "] (got " + breadth + ")");
            }
            if (!(minScore >= 0 && minScore <= 1)) {
                throw new IllegalArgumentException("minScore must be in [0, 1] (got " + minScore + ")");
            }
            // Rank and score is the default: on the LoCoMo evaluation it beat RRF alone at 1 at every context
            // width (RRF had matched weighted fusion at k <= 10 and beaten it at 25 and 50; docs/evaluation.md).
            fusion = fusion == null ? FusionMode.RANK_AND_SCORE : fusion;
        }

        /** {@code k} hits, ranked by default. */
        public static Ranking of(int k) {
            return new Ranking(k, 0, 0, null);
        }

        public Ranking withK(int newK) {
            return new Ranking(newK, breadth, minScore, fusion);
        }

        public Ranking withBreadth(int newBreadth) {
            return new Ranking(k, newBreadth, minScore, fusion);
        }

        public Ranking withMinScore(double newMinScore) {
            return new Ranking(k, breadth, newMinScore, fusion);
        }

        public Ranking withFusion(FusionMode newFusion) {
            return new Ranking(k, breadth, minScore, newFusion);
        }
    }

    public SearchQuery {
        SafeId.require("tenant", tenant);
        text = text == null ? "" : text;
        if (text.isBlank() && vector == null) {
            throw new IllegalArgumentException("a search needs text or a vector");
        }
        filter = filter == null ? Filter.NONE : filter;
        ranking = ranking == null ? Ranking.of(DEFAULT_K) : ranking;
    }

    /** A query of {@code tenant}, built part by part. */
    public static Builder builder(String tenant) {
        return new Builder(tenant);
    }

    /** A text query with no filters beyond the tenant. */
    public static SearchQuery text(String tenant, String text, int k) {
        return new SearchQuery(tenant, text, null, Filter.NONE, Ranking.of(k));
    }

    /** A vector query with no filters beyond the tenant. */
    public static SearchQuery vector(String tenant, float[] vector, int k) {
        return new SearchQuery(tenant, null, new Vector(vector, null), Filter.NONE, Ranking.of(k));
    }

    /** The query's vector, or null. */
    public float[] vectorValues() {
        return vector == null ? null : vector.values();
    }

    /** The model that made the query's vector, or null (none named, or no vector). */
    public String vectorModel() {
        return vector == null ? null : vector.model();
    }

    public int k() {
        return ranking.k();
    }

    /** The query vector, from a model not named: compared with every memory's vector. */
    public SearchQuery withVector(float[] newVector) {
        return withVector(newVector, null);
    }

    /**
     * The query vector made by {@code model}: only memories whose vectors that model made are its neighbours. The
     * vectors under each profile were of the old vector's text: they go with it.
     */
    public SearchQuery withVector(float[] newVector, String model) {
        return new SearchQuery(tenant, text, newVector == null ? null : new Vector(newVector, model), filter, ranking);
    }

    /** The same query carrying its vector under each profile in use ({@link #forProfile}). */
    public SearchQuery withProfiles(Map<String, ProfileVector> byProfile) {
        if (vector == null) {
            throw new IllegalStateException("profile vectors need the query's own vector");
        }
        return new SearchQuery(tenant, text, new Vector(vector.values, vector.model, byProfile), filter, ranking);
    }

    public SearchQuery withFilter(Filter newFilter) {
        return new SearchQuery(tenant, text, vector, newFilter, ranking);
    }

    public SearchQuery withRanking(Ranking newRanking) {
        return new SearchQuery(tenant, text, vector, filter, newRanking);
    }

    public SearchQuery withK(int newK) {
        return withRanking(ranking.withK(newK));
    }

    /** The same query asking the candidates of {@code newBreadth} hits (0: of its k), whatever its k. */
    public SearchQuery withBreadth(int newBreadth) {
        return withRanking(ranking.withBreadth(newBreadth));
    }

    public SearchQuery withMinScore(double minScore) {
        return withRanking(ranking.withMinScore(minScore));
    }

    public SearchQuery withFusion(FusionMode fusion) {
        return withRanking(ranking.withFusion(fusion));
    }

    public SearchQuery withSessions(Set<String> sessions) {
        return withFilter(filter.withSessions(sessions));
    }

    public SearchQuery withTimeRange(Instant from, Instant to) {
        return withFilter(filter.withTimeRange(from, to));
    }

    public SearchQuery withTargets(Set<String> targets) {
        return withFilter(filter.withTargets(targets));
    }

    public SearchQuery withUsers(Set<String> users) {
        return withFilter(filter.withUsers(users));
    }

    public SearchQuery withTypes(Set<MemoryType> types) {
        return withFilter(filter.withTypes(types));
    }

    /**
     * The query an index whose searches use {@code profile} runs: with the vector made under that profile (from
     * the vector's {@code byProfile}, or its own vector if one of the profile's models made it), or on text alone
     * when it carries none (null when it has no text either: nothing to search). A query without a vector, or for
     * an index that never recorded a profile, runs as it is.
     */
    public SearchQuery forProfile(String profile) {
        if (profile == null || vector == null) {
            return this;
        }
        ProfileVector mine = vector.byProfile().get(profile);
        if (mine == null
                && vector.model() != null
                && EmbeddingProfile.models(profile).contains(vector.model())) {
            // Embedded by one of the profile's own models: comparable with the index's vectors of that model.
            mine = new ProfileVector(vector.model(), vector.values);
        }
        if (mine == null && text.isBlank()) {
            return null;
        }
        return new SearchQuery(
                tenant, text, mine == null ? null : new Vector(mine.vector(), mine.model()), filter, ranking);
    }

    /**
     * Candidates asked from each list: HNSW asked for only k misses neighbours, so ask for more and keep k. Ten
     * times the {@link Ranking#breadth} when one is set below k, and never fewer than k.
     */
    public int candidates() {
        int k = ranking.k();
        int sizing = ranking.breadth() == 0 ? k : Math.min(k, ranking.breadth());
        return Math.max(k, Math.min(10 * MAX_K, Math.max(100, sizing * 10)));
    }

    /** The query as instances send it to one another: one flat JSON object. */
    @JsonValue
    Wire wire() {
        return new Wire(
                tenant,
                text,
                vectorValues(),
                ranking.k(),
                filter.types(),
                filter.users(),
                filter.sessions(),
                filter.from(),
                filter.to(),
                ranking.minScore(),
                ranking.fusion(),
                filter.targets(),
                vectorModel(),
                vector == null ? Map.of() : vector.byProfile(),
                ranking.breadth());
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static SearchQuery fromWire(Wire wire) {
        return wire.query();
    }

    /**
     * A query's JSON as instances exchange it, flat, field for field as before the query had parts (an instance of
     * the version before reads it, and writes what this one reads); {@code byProfile} is left out when empty and
     * {@code breadth} when 0, as older instances wrote them.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Wire(
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
        SearchQuery query() {
            return new SearchQuery(
                    tenant,
                    text,
                    vector == null ? null : new Vector(vector, vectorModel, byProfile),
                    new Filter(types, users, sessions, from, to, targets),
                    new Ranking(k, breadth, minScore, fusion));
        }
    }

    /** Builds a query part by part; what is not set is the default (no filter, {@value #DEFAULT_K} hits). */
    public static final class Builder {
        private final String tenant;
        private String text;
        private Vector vector;
        private Filter filter = Filter.NONE;
        private Ranking ranking = Ranking.of(DEFAULT_K);

        private Builder(String tenant) {
            this.tenant = tenant;
        }

        public Builder text(String newText) {
            text = newText;
            return this;
        }

        public Builder vector(float[] values, String model) {
            vector = values == null ? null : new Vector(values, model);
            return this;
        }

        public Builder filter(Filter newFilter) {
            filter = newFilter;
            return this;
        }

        public Builder types(Set<MemoryType> types) {
            filter = filter.withTypes(types);
            return this;
        }

        public Builder users(Set<String> users) {
            filter = filter.withUsers(users);
            return this;
        }

        public Builder sessions(Set<String> sessions) {
            filter = filter.withSessions(sessions);
            return this;
        }

        public Builder timeRange(Instant from, Instant to) {
            filter = filter.withTimeRange(from, to);
            return this;
        }

        public Builder targets(Set<String> targets) {
            filter = filter.withTargets(targets);
            return this;
        }

        public Builder k(int k) {
            ranking = ranking.withK(k);
            return this;
        }

        public Builder minScore(double minScore) {
            ranking = ranking.withMinScore(minScore);
            return this;
        }

        public Builder fusion(FusionMode fusion) {
            ranking = ranking.withFusion(fusion);
            return this;
        }

        public SearchQuery build() {
            return new SearchQuery(tenant, text, vector, filter, ranking);
        }
    }
}
