package io.reme.search;

import io.reme.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.core.LowerCaseFilter;
import org.apache.lucene.analysis.core.TypeTokenFilter;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.util.BytesRef;

/**
 * The fields of {@link MemoryIndex}'s documents, the analyzers of its text fields, and the document
 * of a {@link MemoryRecord} ({@link DocumentReader} reads the record back).
 *
 * <p>{@code id}, {@code tenant}, {@code user}, {@code session}, {@code type}: exact terms.
 * {@code time}: a long point (epoch millis of {@link MemoryRecord#effectiveTime()}).
 * {@code text_en}: the text through {@link EnglishAnalyzer} (stop words, Porter stemming).
 * {@code text_cjk}: only the CJK runs of the text, as overlapping bigrams (a lone CJK character as a
 * unigram); other scripts are left to {@code text_en}. {@code vec.MODEL} and {@code vec_ctx.MODEL}: the vector of
 * the text and of the text with its context, normalised to unit length, in an HNSW graph per model
 * compared by dot product (= cosine); a vector without a model name goes to {@code vec} and
 * {@code vec_ctx}. One graph per model, because vectors of two models are not comparable: a graph
 * holding both would link and rank them against each other. {@code target}: exact term;
 * {@code meta}: each metadata entry as one exact term; {@code created_ms}, {@code updated_ms},
 * {@code conversation_ms}: long points with doc values, the keys {@link MemoryIndex#list} filters and
 * sorts by. {@code src_b}: the record as JSON without its vector, to rebuild hits, and {@code id_b}: the
 * id, both in binary doc values (documents written before those existed keep the record in the stored
 * field {@code src}; see {@link DocumentReader}).
 */
final class MemorySchema {
    static final String F_ID = "id";
    /** tenant/id: the identity of a document, so two tenants' equal ids never replace each other. */
    static final String F_KEY = "key";

    static final String F_TENANT = "tenant";
    static final String F_USER = "user";
    static final String F_SESSION = "session";
    static final String F_TYPE = "type";
    static final String F_TIME = "time";
    static final String F_TEXT_EN = "text_en";
    static final String F_TEXT_CJK = "text_cjk";
    /**
     * A record's text followed by its {@link MemoryRecord#context} (the text alone when it has
     * none): the second granularity, searched as a list of its own beside {@link #F_TEXT_EN}.
     */
    static final String F_CONTEXT_EN = "context_en";

    static final String F_CONTEXT_CJK = "context_cjk";
    /** The vector of a record's {@link MemoryRecord#contextText()}. */
    static final String F_CONTEXT_VECTOR = "vec_ctx";
    /** Present (term {@code 1}, doc value 1) on the documents of records with a context. */
    static final String F_HAS_CONTEXT = "has_ctx";

    /**
     * Doc value 1 on the documents of records whose text asks a question ({@link HybridFusion#asksQuestion}):
     * read for every candidate of a search, so the fusion can weigh them down without reading texts.
     */
    static final String F_QUESTION = "question";

    /** The calendar terms of a record's effective time ({@link QueryTime}), one field each. */
    static final Map<QueryTime.Field, String> TIME_FIELDS = Map.of(
            QueryTime.Field.DAY, "day",
            QueryTime.Field.MONTH, "month",
            QueryTime.Field.MONTH_OF_YEAR, "month_of_year",
            QueryTime.Field.YEAR, "year");

    static final String F_VECTOR = "vec";
    /** The record as JSON in a stored field: documents written before {@link #F_SOURCE_BYTES} only. */
    static final String F_SOURCE = "src";
    /** The record as JSON, without its vector, in binary doc values. */
    static final String F_SOURCE_BYTES = "src_b";
    /** The id in binary doc values: read for every candidate of a search. */
    static final String F_ID_BYTES = "id_b";

    static final String F_TARGET = "target";
    /** Metadata entries as exact terms {@code key + META_SEPARATOR + value}. */
    static final String F_META = "meta";

    static final char META_SEPARATOR = '\u001f';
    static final String F_CREATED = "created_ms";
    static final String F_UPDATED = "updated_ms";
    static final String F_CONVERSATION = "conversation_ms";

    private MemorySchema() {}

    /** English for {@code text_en}, CJK bigrams for {@code text_cjk}, keywords left to their field types. */
    static Analyzer newAnalyzer() {
        return new PerFieldAnalyzerWrapper(
                new EnglishAnalyzer(),
                Map.of(F_TEXT_CJK, new CjkBigramAnalyzer(), F_CONTEXT_CJK, new CjkBigramAnalyzer()));
    }

    /** The value of {@link #F_KEY}. */
    static String key(String tenant, String id) {
        return new MemoryKey(tenant, id).key();
    }

    /** The field of the vectors of {@code model}'s texts: one per model. */
    static String vectorField(String model) {
        return model == null || model.isEmpty() ? F_VECTOR : F_VECTOR + "." + model;
    }

    /** The field of the vectors of {@code model}'s texts with their context. */
    static String contextVectorField(String model) {
        return model == null || model.isEmpty() ? F_CONTEXT_VECTOR : F_CONTEXT_VECTOR + "." + model;
    }

    static String sortField(MemoryListQuery.Sort sort) {
        return switch (sort) {
            case CREATED -> F_CREATED;
            case UPDATED -> F_UPDATED;
            case CONVERSATION -> F_CONVERSATION;
        };
    }

    /**
     * The record's document. Its vectors fix the dimension of their fields in {@code dimensions} if
     * they have none yet.
     *
     * @throws IllegalArgumentException if a vector's dimension differs from its field's
     */
    static Document toDocument(MemoryRecord r, VectorDimensions dimensions) {
        Document doc = new Document();
        doc.add(new StringField(F_ID, r.id(), Field.Store.NO));
        doc.add(new StringField(F_KEY, key(r.tenant(), r.id()), Field.Store.NO));
        doc.add(new SortedDocValuesField(F_ID, new BytesRef(r.id())));
        doc.add(new BinaryDocValuesField(F_ID_BYTES, new BytesRef(r.id())));
        doc.add(new StringField(F_TENANT, r.tenant(), Field.Store.NO));
        if (r.user() != null) {
            doc.add(new StringField(F_USER, r.user(), Field.Store.NO));
        }
        if (r.session() != null) {
            doc.add(new StringField(F_SESSION, r.session(), Field.Store.NO));
        }
        doc.add(new StringField(F_TYPE, r.type().name(), Field.Store.NO));
        if (r.target() != null) {
            doc.add(new StringField(F_TARGET, r.target(), Field.Store.NO));
        }
        for (Map.Entry<String, String> entry : r.metadata().entrySet()) {
            doc.add(new StringField(F_META, entry.getKey() + META_SEPARATOR + entry.getValue(), Field.Store.NO));
        }
        for (MemoryListQuery.Sort sort : MemoryListQuery.Sort.values()) {
            long value = sort.valueOf(r);
            doc.add(new LongPoint(sortField(sort), value));
            doc.add(new NumericDocValuesField(sortField(sort), value));
        }
        if (r.effectiveTime() != null) {
            doc.add(new LongPoint(F_TIME, r.effectiveTime().toEpochMilli()));
            QueryTime.fields(r.effectiveTime())
                    .forEach((field, value) -> doc.add(new StringField(TIME_FIELDS.get(field), value, Field.Store.NO)));
        }
        doc.add(new TextField(F_TEXT_EN, r.text(), Field.Store.NO));
        doc.add(new TextField(F_TEXT_CJK, r.text(), Field.Store.NO));
        String wide = r.context() == null ? r.text() : r.contextText();
        doc.add(new TextField(F_CONTEXT_EN, wide, Field.Store.NO));
        doc.add(new TextField(F_CONTEXT_CJK, wide, Field.Store.NO));
        if (HybridFusion.asksQuestion(r.text())) {
            doc.add(new NumericDocValuesField(F_QUESTION, 1));
        }
        if (r.context() != null) {
            doc.add(new StringField(F_HAS_CONTEXT, "1", Field.Store.NO));
            doc.add(new NumericDocValuesField(F_HAS_CONTEXT, 1));
        }
        float[] vector = r.vector();
        if (vector != null) {
            addVectors(doc, dimensions, r.vectorModel(), vector, r.contextVector());
        }
        for (MemoryRecord.ModelVectors more : r.moreVectors()) {
            if (!more.model().equals(r.vectorModel())) {
                addVectors(doc, dimensions, more.model(), more.vector(), more.contextVector());
            }
        }
        try {
            doc.add(new BinaryDocValuesField(
                    F_SOURCE_BYTES, new BytesRef(Json.MAPPER.writeValueAsBytes(r.withVector(null, r.vectorModel())))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return doc;
    }

    private static void addVectors(
            Document doc, VectorDimensions dimensions, String model, float[] vector, float[] contextVector) {
        String field = vectorField(model);
        dimensions.fix(field, vector.length);
        doc.add(new KnnFloatVectorField(field, unit(vector), VectorSimilarityFunction.DOT_PRODUCT));
        if (contextVector != null) {
            String contextField = contextVectorField(model);
            dimensions.fix(contextField, contextVector.length);
            doc.add(new KnnFloatVectorField(contextField, unit(contextVector), VectorSimilarityFunction.DOT_PRODUCT));
        }
    }

    static float[] unit(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        double norm = Math.sqrt(sum);
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] / norm);
        }
        return out;
    }

    /**
     * CJK text as overlapping bigrams (a lone CJK character as a unigram), full-width forms folded;
     * every other token is dropped, since the English field already covers it.
     */
    static final class CjkBigramAnalyzer extends Analyzer {
        private static final Set<String> CJK_TYPES = Set.of(CJKBigramFilter.DOUBLE_TYPE, CJKBigramFilter.SINGLE_TYPE);

        @Override
        protected TokenStreamComponents createComponents(String fieldName) {
            Tokenizer source = new StandardTokenizer();
            TokenStream stream = new CJKWidthFilter(source);
            stream = new LowerCaseFilter(stream);
            stream = new CJKBigramFilter(stream);
            stream = new TypeTokenFilter(stream, CJK_TYPES, true);
            return new TokenStreamComponents(source, stream);
        }
    }
}
