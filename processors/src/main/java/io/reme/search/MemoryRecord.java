package io.reme.search;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 * or tool name they are about), a {@code version} that starts at 1 and grows with every edit, and
 * the previous contents, newest first, in {@code history} (at most {@value #MAX_HISTORY}). The id
 * never changes on an edit: it is generated once, never derived from the content.
 *
 * <p>{@code context}, when present, is text around the memory that helps find it but is not the
 * memory itself: the neighbouring turns of a dialog chunk, the heading and the paragraphs beside a
 * diary chunk. Search matches it with a lower weight than {@code text}, so a memory is found by
 * its surroundings while the memory that says it ranks first (see {@link MemoryIndex}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MemoryRecord(
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
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ModelVectors> moreVectors) {

    /** Previous contents kept on a record; older ones are dropped. */
    public static final int MAX_HISTORY = 10;
    /** Longest accepted context, in characters. */
    public static final int MAX_CONTEXT_LENGTH = 16_384;
    /** Longest accepted target. */
    public static final int MAX_TARGET_LENGTH = 200;

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
        SafeId.require("tenant", tenant);
        if (user != null) {
            SafeId.require("user", user);
        }
        if (session != null) {
            SafeId.require("session", session);
        }
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(text, "text");
        metadata = metadata == null || metadata.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(metadata));
        if (vector != null) {
            vector = vector.clone();
            checkVector("vector", vector);
        }
        if (target != null
                && (target.isBlank()
                        || target.length() > MAX_TARGET_LENGTH
                        || target.chars().anyMatch(Character::isISOControl))) {
            throw new IllegalArgumentException(
                    "target must be 1.." + MAX_TARGET_LENGTH + " characters without control characters");
        }
        // Records written before versions existed read as version 1.
        version = Math.max(1, version);
        history = history == null ? List.of() : List.copyOf(history.subList(0, Math.min(MAX_HISTORY, history.size())));
        if (context != null && context.isBlank()) {
            context = null;
        }
        if (context != null && context.length() > MAX_CONTEXT_LENGTH) {
            throw new IllegalArgumentException("context must be at most " + MAX_CONTEXT_LENGTH + " characters");
        }
        if (contextVector != null) {
            if (context == null) {
                throw new IllegalArgumentException("contextVector needs a context");
            }
            contextVector = contextVector.clone();
            checkVector("contextVector", contextVector);
        }
        moreVectors = moreVectors == null ? List.of() : List.copyOf(moreVectors);
        if (!moreVectors.isEmpty()
                && context == null
                && moreVectors.stream().anyMatch(v -> v.contextVector() != null)) {
            throw new IllegalArgumentException("moreVectors: a contextVector needs a context");
        }
    }

    /** A record without vectors of other models (every writer but a re-embedding makes these). */
    public MemoryRecord(
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
            List<Revision> history,
            String context,
            float[] contextVector) {
        this(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                target,
                version,
                history,
                context,
                contextVector,
                List.of());
    }

    /** A first version with no target (diary and dialog chunks). */
    public MemoryRecord(
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
            String vectorModel) {
        this(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                null,
                1,
                List.of(),
                null,
                null);
    }

    /** A record with the fields most callers need; times, metadata and vector can be added with the withers. */
    public static MemoryRecord of(
            String id, String tenant, String user, String session, MemoryType type, String text, Instant createdAt) {
        return new MemoryRecord(
                id, tenant, user, session, type, text, createdAt, createdAt, null, Map.of(), null, null);
    }

    @Override
    public float[] vector() {
        return vector == null ? null : vector.clone();
    }

    @Override
    public float[] contextVector() {
        return contextVector == null ? null : contextVector.clone();
    }

    /** What the context vector embeds: the text followed by its context; null without context. */
    @JsonIgnore
    public String contextText() {
        return context == null ? null : text + "\n" + context;
    }

    /** The same memory with the vector of {@link #contextText()} (by the model of {@link #vectorModel}). */
    public MemoryRecord withContextVector(float[] newContextVector) {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                target,
                version,
                history,
                context,
                newContextVector,
                moreVectors);
    }

    /** The time the search's time filter applies to: the conversation time if known, else the creation time. */
    @JsonIgnore
    public Instant effectiveTime() {
        return conversationTime != null ? conversationTime : createdAt;
    }

    public MemoryRecord withVector(float[] newVector, String model) {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                newVector,
                model,
                target,
                version,
                history,
                context,
                newVector != null && Objects.equals(model, vectorModel) ? contextVector : null,
                newVector == null
                        ? List.of()
                        : moreVectors.stream()
                                .filter(v -> !v.model().equals(model))
                                .toList());
    }

    public MemoryRecord withConversationTime(Instant time) {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                time,
                metadata,
                vector,
                vectorModel,
                target,
                version,
                history,
                context,
                contextVector,
                moreVectors);
    }

    public MemoryRecord withText(String newText, Instant newUpdatedAt) {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                newText,
                createdAt,
                newUpdatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                target,
                version,
                history,
                context,
                null);
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

    public MemoryRecord withContext(String newContext) {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                target,
                version,
                history,
                newContext,
                null);
    }

    public MemoryRecord withTarget(String newTarget) {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                newTarget,
                version,
                history,
                context,
                contextVector,
                moreVectors);
    }

    /**
     * The next version of this memory: same id, the new content and metadata, {@code updatedAt} =
     * {@code at}; the vector is dropped (it belonged to the old text). A changed content puts the
     * old one first in the history.
     */
    public MemoryRecord revise(String newText, Map<String, String> newMetadata, Instant at) {
        List<Revision> older = new ArrayList<>(history.size() + 1);
        if (!newText.equals(text)) {
            older.add(new Revision(text, version, at));
        }
        older.addAll(history);
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                newText,
                createdAt,
                at,
                conversationTime,
                newMetadata,
                null,
                null,
                target,
                version + 1,
                older,
                context,
                null);
    }

    /**
     * The same memory also carrying {@code more}, another model's vectors of the same text and context (replacing
     * any it carried of that model); the record's own {@link #vectorModel} cannot be given again.
     */
    public MemoryRecord withMoreVectors(ModelVectors more) {
        if (more.model().equals(vectorModel)) {
            throw new IllegalArgumentException("the record's own vectors are of " + vectorModel);
        }
        List<ModelVectors> all = new ArrayList<>(moreVectors.size() + 1);
        moreVectors.stream().filter(v -> !v.model().equals(more.model())).forEach(all::add);
        all.add(more);
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vector,
                vectorModel,
                target,
                version,
                history,
                context,
                contextVector,
                all);
    }

    /** Whether the record carries a vector of its text made by {@code model}. */
    public boolean hasVectorOf(String model) {
        return (vector != null && model.equals(vectorModel))
                || moreVectors.stream().anyMatch(v -> v.model().equals(model));
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

    @Override
    public boolean equals(Object o) {
        return o instanceof MemoryRecord r
                && id.equals(r.id)
                && tenant.equals(r.tenant)
                && Objects.equals(user, r.user)
                && Objects.equals(session, r.session)
                && type == r.type
                && text.equals(r.text)
                && Objects.equals(createdAt, r.createdAt)
                && Objects.equals(updatedAt, r.updatedAt)
                && Objects.equals(conversationTime, r.conversationTime)
                && metadata.equals(r.metadata)
                && Arrays.equals(vector, r.vector)
                && Objects.equals(vectorModel, r.vectorModel)
                && Objects.equals(target, r.target)
                && version == r.version
                && history.equals(r.history)
                && Objects.equals(context, r.context)
                && Arrays.equals(contextVector, r.contextVector)
                && moreVectors.equals(r.moreVectors);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                Arrays.hashCode(vector),
                vectorModel,
                target,
                version,
                history,
                context,
                Arrays.hashCode(contextVector),
                moreVectors);
    }

    @Override
    public String toString() {
        return "MemoryRecord[id=" + id + ", tenant=" + tenant + ", user=" + user + ", session=" + session
                + ", type=" + type + ", text=" + text + ", createdAt=" + createdAt + ", updatedAt=" + updatedAt
                + ", conversationTime=" + conversationTime + ", metadata=" + metadata
                + ", vector=" + (vector == null ? "null" : "float[" + vector.length + "]")
                + ", vectorModel=" + vectorModel + ", target=" + target + ", version=" + version
                + ", history=" + history.size() + ", context="
                + (context == null ? "null" : context.length() + " chars")
                + ", contextVector=" + (contextVector == null ? "null" : "float[" + contextVector.length + "]")
                + ", moreVectors="
                + moreVectors.stream().map(ModelVectors::model).toList() + "]";
    }
}
