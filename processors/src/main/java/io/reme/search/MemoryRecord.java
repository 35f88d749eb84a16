package io.reme.search;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One memory, the value of the compacted {@code memories} topic (keyed by {@link #id}) and the unit
 * of the search index. Plain JSON through {@link io.reme.json.Json#MAPPER}: instants as ISO-8601,
 * the vector as a number array, null fields left out.
 *
 * <p>{@code id} is unique across tenants (it is the topic key). {@code user} and {@code session}
 * are optional. {@code conversationTime} is when the remembered thing was said or happened;
 * {@code createdAt}/{@code updatedAt} are when the record was written. The time filter of a search
 * uses {@link #effectiveTime()}. The vector, when present, was produced by the model named
 * {@code vectorModel}; it must be non-empty, finite and not all zeros (the index normalises it).
 * Metadata is kept sorted by key so that serialisation is deterministic.
 *
 * <p>Personal, procedural and tool memories also carry a {@code target} (the user name, task name
 * or tool name they are about), a version ({@link #version()}) that starts at 1 and grows with every edit, and
 * the previous contents, newest first, in {@code history} (at most {@value #MAX_HISTORY}). The id
 * never changes on an edit: it is generated once, never derived from the content.
 *
 * <p>{@code context}, when present, is text around the memory that helps find it but is not the
 * memory itself: the neighbouring turns of a dialog chunk, the heading and the paragraphs beside a
 * diary chunk. Search matches it with a lower weight than {@code text}, so a memory is found by
 * its surroundings while the memory that says it ranks first (see {@link MemoryIndex}).
 *
 * <p>In Java the fields come in groups ({@link Owner}, {@link Times}, {@link Versions}, {@link Vectors}), so
 * that no two neighbours of the constructor share a type and a swap does not compile; on the topic the
 * record is one flat JSON object ({@link Wire}), the same as before the groups.
 */
public record MemoryRecord(
        String id,
        Owner owner,
        MemoryType type,
        String text,
        Times times,
        Map<String, String> metadata,
        String target,
        Versions versions,
        String context,
        Vectors vectors,
        List<SourceSpan> sources) {

    /** Previous contents kept on a record; older ones are dropped. */
    public static final int MAX_HISTORY = 10;
    /** Longest accepted context, in characters. */
    public static final int MAX_CONTEXT_LENGTH = 16_384;
    /** Longest accepted target. */
    public static final int MAX_TARGET_LENGTH = 200;

    /** Whose memory it is: a tenant always, a user and a session when known. */
    public record Owner(String tenant, String user, String session) {
        public Owner {
            SafeId.require("tenant", tenant);
            if (user != null) {
                SafeId.require("user", user);
            }
            if (session != null) {
                SafeId.require("session", session);
            }
        }
    }

    /** When the record was written and first written, and when the remembered thing was said (null: unknown). */
    public record Times(Instant createdAt, Instant updatedAt, Instant conversationTime) {
        /** Written once at {@code at}, said at an unknown time. */
        public static Times at(Instant at) {
            return new Times(at, at, null);
        }
    }

    /** The version of the content (from 1) and the earlier contents, newest first, at most {@link #MAX_HISTORY}. */
    public record Versions(long version, List<Revision> history) {
        /** A first version. */
        public static final Versions FIRST = new Versions(1, List.of());

        public Versions {
            // Records written before versions existed read as version 1.
            version = Math.max(1, version);
            history = history == null
                    ? List.of()
                    : List.copyOf(history.subList(0, Math.min(MAX_HISTORY, history.size())));
        }
    }

    /**
     * The vector of the text and of the text with its context, by the model named {@code model}, and other
     * models' vectors of the same content ({@code more}, during a change of model).
     */
    public record Vectors(String model, float[] vector, float[] contextVector, List<ModelVectors> more) {
        /** No vector at all. */
        public static final Vectors NONE = new Vectors(null, null, null, List.of());

        public Vectors {
            if (vector != null) {
                vector = vector.clone();
                checkVector("vector", vector);
            }
            if (contextVector != null) {
                contextVector = contextVector.clone();
                checkVector("contextVector", contextVector);
            }
            more = more == null ? List.of() : List.copyOf(more);
        }

        /** The text's vector by {@code model}, nothing else. */
        public static Vectors of(String model, float[] vector) {
            return new Vectors(model, vector, null, List.of());
        }

        @Override
        public float[] vector() {
            return vector == null ? null : vector.clone();
        }

        @Override
        public float[] contextVector() {
            return contextVector == null ? null : contextVector.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Vectors v
                    && Objects.equals(model, v.model)
                    && Arrays.equals(vector, v.vector)
                    && Arrays.equals(contextVector, v.contextVector)
                    && more.equals(v.more);
        }

        @Override
        public int hashCode() {
            return Objects.hash(model, Arrays.hashCode(vector), Arrays.hashCode(contextVector), more);
        }

        @Override
        public String toString() {
            return "Vectors[model=" + model + ", vector=" + (vector == null ? "null" : "float[" + vector.length + "]")
                    + ", contextVector=" + (contextVector == null ? "null" : "float[" + contextVector.length + "]")
                    + ", more=" + more.stream().map(ModelVectors::model).toList() + "]";
        }
    }

    /** One earlier content of a memory: what it said as of {@code version}, replaced at {@code replacedAt}. */
    public record Revision(String text, long version, Instant replacedAt) {
        public Revision {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * The vectors of this memory's text and text-with-context made by another model than {@link #vectorModel}:
     * a memory re-embedded for a change of model carries both models' vectors until the change is done, so the
     * index can answer with either (docs/architecture.md, "Changing the embedding model").
     */
    public record ModelVectors(String model, float[] vector, float[] contextVector) {
        public ModelVectors {
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("moreVectors: a model is required");
            }
            Objects.requireNonNull(vector, "moreVectors: vector");
            vector = vector.clone();
            checkVector("moreVectors vector", vector);
            if (contextVector != null) {
                contextVector = contextVector.clone();
                checkVector("moreVectors contextVector", contextVector);
            }
        }

        @Override
        public float[] vector() {
            return vector.clone();
        }

        @Override
        public float[] contextVector() {
            return contextVector == null ? null : contextVector.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ModelVectors v
                    && model.equals(v.model)
                    && Arrays.equals(vector, v.vector)
                    && Arrays.equals(contextVector, v.contextVector);
        }

        @Override
        public int hashCode() {
            return Objects.hash(model, Arrays.hashCode(vector), Arrays.hashCode(contextVector));
        }

        @Override
        public String toString() {
            return "ModelVectors[model=" + model + ", vector=float[" + vector.length + "], contextVector="
                    + (contextVector == null ? "null" : "float[" + contextVector.length + "]") + "]";
        }
    }

    public MemoryRecord {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("id is required");
        }
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(text, "text");
        times = times == null ? new Times(null, null, null) : times;
        metadata = metadata == null || metadata.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(metadata));
        if (target != null
                && (target.isBlank()
                        || target.length() > MAX_TARGET_LENGTH
                        || target.chars().anyMatch(Character::isISOControl))) {
            throw new IllegalArgumentException(
                    "target must be 1.." + MAX_TARGET_LENGTH + " characters without control characters");
        }
        versions = versions == null ? Versions.FIRST : versions;
        if (context != null && context.isBlank()) {
            context = null;
        }
        if (context != null && context.length() > MAX_CONTEXT_LENGTH) {
            throw new IllegalArgumentException("context must be at most " + MAX_CONTEXT_LENGTH + " characters");
        }
        vectors = vectors == null ? Vectors.NONE : vectors;
        if (context == null && vectors.contextVector != null) {
            throw new IllegalArgumentException("contextVector needs a context");
        }
        if (context == null && vectors.more.stream().anyMatch(v -> v.contextVector() != null)) {
            throw new IllegalArgumentException("moreVectors: a contextVector needs a context");
        }
        sources = sources == null ? List.of() : List.copyOf(sources);
        if (sources.size() > SourceSpan.MAX_SPANS) {
            throw new IllegalArgumentException("sources: at most " + SourceSpan.MAX_SPANS + " spans");
        }
    }

    /** A record with the fields most callers need; times, metadata and vector can be added with the withers. */
    public static MemoryRecord of(
            String id, String tenant, String user, String session, MemoryType type, String text, Instant createdAt) {
        return new MemoryRecord(
                id,
                new Owner(tenant, user, session),
                type,
                text,
                new Times(createdAt, createdAt, null),
                Map.of(),
                null,
                Versions.FIRST,
                null,
                Vectors.NONE,
                List.of());
    }

    public String tenant() {
        return owner.tenant();
    }

    public String user() {
        return owner.user();
    }

    public String session() {
        return owner.session();
    }

    public Instant createdAt() {
        return times.createdAt();
    }

    public Instant updatedAt() {
        return times.updatedAt();
    }

    public Instant conversationTime() {
        return times.conversationTime();
    }

    public long version() {
        return versions.version();
    }

    public List<Revision> history() {
        return versions.history();
    }

    public float[] vector() {
        return vectors.vector();
    }

    public String vectorModel() {
        return vectors.model();
    }

    public float[] contextVector() {
        return vectors.contextVector();
    }

    public List<ModelVectors> moreVectors() {
        return vectors.more();
    }

    /** What the context vector embeds: the text followed by its context; null without context. */
    public String contextText() {
        return context == null ? null : text + "\n" + context;
    }

    /** The time the search's time filter applies to: the conversation time if known, else the creation time. */
    public Instant effectiveTime() {
        return times.conversationTime() != null ? times.conversationTime() : times.createdAt();
    }

    /** The same memory with the vector of {@link #contextText()} (by the model of {@link #vectorModel}). */
    public MemoryRecord withContextVector(float[] newContextVector) {
        return with(new Vectors(vectors.model(), vectors.vector, newContextVector, vectors.more));
    }

    /**
     * The same memory with {@code newVector} of its text by {@code model}: the context vector stays if the model
     * does, and other models' vectors stay but {@code model}'s (none at all with no vector).
     */
    public MemoryRecord withVector(float[] newVector, String model) {
        return with(new Vectors(
                model,
                newVector,
                newVector != null && Objects.equals(model, vectors.model()) ? vectors.contextVector : null,
                newVector == null
                        ? List.of()
                        : vectors.more.stream()
                                .filter(v -> !v.model().equals(model))
                                .toList()));
    }

    public MemoryRecord withConversationTime(Instant time) {
        return new MemoryRecord(
                id,
                owner,
                type,
                text,
                new Times(times.createdAt(), times.updatedAt(), time),
                metadata,
                target,
                versions,
                context,
                vectors,
                sources);
    }

    /** The same memory saying {@code newText} as of {@code newUpdatedAt}, without vectors (they were of the old text). */
    public MemoryRecord withText(String newText, Instant newUpdatedAt) {
        return new MemoryRecord(
                id,
                owner,
                type,
                newText,
                new Times(times.createdAt(), newUpdatedAt, times.conversationTime()),
                metadata,
                target,
                versions,
                context,
                new Vectors(vectors.model(), vectors.vector, null, List.of()),
                sources);
    }

    /**
     * {@code context} cut to {@link #MAX_CONTEXT_LENGTH} characters (never inside a surrogate pair), for
     * code that builds a context from text of any length: the record refuses a longer one.
     */
    public static String clipContext(String context) {
        if (context == null || context.length() <= MAX_CONTEXT_LENGTH) {
            return context;
        }
        int end = MAX_CONTEXT_LENGTH;
        if (Character.isHighSurrogate(context.charAt(end - 1))) {
            end--;
        }
        return context.substring(0, end);
    }

    /** The same memory with another context, without a context vector (it was of the old context). */
    public MemoryRecord withContext(String newContext) {
        return new MemoryRecord(
                id,
                owner,
                type,
                text,
                times,
                metadata,
                target,
                versions,
                newContext,
                new Vectors(vectors.model(), vectors.vector, null, List.of()),
                sources);
    }

    /** The same memory made from {@code newSources} too (see {@link SourceSpan#merge}). */
    public MemoryRecord withSources(List<SourceSpan> newSources) {
        return new MemoryRecord(
                id,
                owner,
                type,
                text,
                times,
                metadata,
                target,
                versions,
                context,
                vectors,
                SourceSpan.merge(sources, newSources));
    }

    public MemoryRecord withTarget(String newTarget) {
        return new MemoryRecord(id, owner, type, text, times, metadata, newTarget, versions, context, vectors, sources);
    }

    /**
     * The next version of this memory: same id, the new content and metadata, {@code updatedAt} =
     * {@code at}; the vector is dropped (it belonged to the old text). A changed content puts the
     * old one first in the history.
     */
    public MemoryRecord revise(String newText, Map<String, String> newMetadata, Instant at) {
        List<Revision> older = new ArrayList<>(versions.history().size() + 1);
        if (!newText.equals(text)) {
            older.add(new Revision(text, versions.version(), at));
        }
        older.addAll(versions.history());
        return new MemoryRecord(
                id,
                owner,
                type,
                newText,
                new Times(times.createdAt(), at, times.conversationTime()),
                newMetadata,
                target,
                new Versions(versions.version() + 1, older),
                context,
                Vectors.NONE,
                sources);
    }

    /**
     * The same memory also carrying {@code more}, another model's vectors of the same text and context (replacing
     * any it carried of that model); the record's own {@link #vectorModel} cannot be given again.
     */
    public MemoryRecord withMoreVectors(ModelVectors more) {
        if (more.model().equals(vectors.model())) {
            throw new IllegalArgumentException("the record's own vectors are of " + vectors.model());
        }
        List<ModelVectors> all = new ArrayList<>(vectors.more.size() + 1);
        vectors.more.stream().filter(v -> !v.model().equals(more.model())).forEach(all::add);
        all.add(more);
        return with(new Vectors(vectors.model(), vectors.vector, vectors.contextVector, all));
    }

    /** Whether the record carries a vector of its text made by {@code model}. */
    public boolean hasVectorOf(String model) {
        return (vectors.vector != null && model.equals(vectors.model()))
                || vectors.more.stream().anyMatch(v -> v.model().equals(model));
    }

    private MemoryRecord with(Vectors newVectors) {
        return new MemoryRecord(id, owner, type, text, times, metadata, target, versions, context, newVectors, sources);
    }

    /** Vector present, non-empty, every component finite and not all zeros. */
    static void checkVector(String field, float[] v) {
        if (v.length == 0) {
            throw new IllegalArgumentException(field + " must not be empty");
        }
        double sum = 0;
        for (float x : v) {
            if (!Float.isFinite(x)) {
                throw new IllegalArgumentException(field + " has a non-finite component");
            }
            sum += (double) x * x;
        }
        if (sum == 0) {
            throw new IllegalArgumentException(field + " is all zeros");
        }
    }

    @JsonValue
    Wire wire() {
        return new Wire(
                id,
                owner.tenant(),
                owner.user(),
                owner.session(),
                type,
                text,
                times.createdAt(),
                times.updatedAt(),
                times.conversationTime(),
                metadata,
                vectors.vector,
                vectors.model(),
                target,
                versions.version(),
                versions.history(),
                context,
                vectors.contextVector,
                vectors.more(),
                sources);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static MemoryRecord fromWire(Wire wire) {
        return wire.record();
    }

    /** The record's JSON: flat, its fields in the order they were added to the topic, null ones left out. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Wire(
            String id,
            String tenant,
            String user,
            String session,
            MemoryType type,
            String text,
            Instant createdAt,
            Instant updatedAt,
            Instant conversationTime,
            Map<String, String> metadata,
            float[] vector,
            String vectorModel,
            String target,
            long version,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Revision> history,
            String context,
            float[] contextVector,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ModelVectors> moreVectors,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SourceSpan> sources) {
        MemoryRecord record() {
            return new MemoryRecord(
                    id,
                    new Owner(tenant, user, session),
                    type,
                    text,
                    new Times(createdAt, updatedAt, conversationTime),
                    metadata,
                    target,
                    new Versions(version, history),
                    context,
                    new Vectors(vectorModel, vector, contextVector, moreVectors),
                    sources);
        }
    }

    @Override
    public String toString() {
        return "MemoryRecord[id=" + id + ", owner=" + owner + ", type=" + type + ", text=" + text + ", times=" + times
                + ", metadata=" + metadata + ", target=" + target + ", version=" + versions.version()
                + ", history=" + versions.history().size() + ", context="
                + (context == null ? "null" : context.length() + " chars") + ", vectors=" + vectors + ", sources="
                + sources.size() + "]";
    }
}
