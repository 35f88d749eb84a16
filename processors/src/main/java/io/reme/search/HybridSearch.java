package io.reme.search;

import static io.reme.search.MemorySchema.F_CONTEXT_CJK;
import static io.reme.search.MemorySchema.F_CONTEXT_EN;
import static io.reme.search.MemorySchema.F_HAS_CONTEXT;
import static io.reme.search.MemorySchema.F_QUESTION;
import static io.reme.search.MemorySchema.F_TEXT_CJK;
import static io.reme.search.MemorySchema.F_TEXT_EN;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.QueryBuilder;

/**
 * One search of {@link MemoryIndex}, against one searcher: the candidate lists (BM25 over the text and
 * over the text with its context, a date the text names boosting memories said then; kNN over the
 * vectors of both), their fusion by {@link HybridFusion}, and the hits' records. Remembers each
 * candidate's document, to read its flags and its record from. Not thread-safe: one instance per search.
 */
final class HybridSearch {
    /**
     * What a date the search text names adds to a memory said on it: about one more matching word of
     * middling rarity (BM25 scores of LoCoMo questions run 5-20 over 2-5 words), so the date breaks
     * ties between memories that share the words and never lifts one that shares none.
     */
    static final float TIME_BOOST = 2f;
    /**
     * Above this many documents the graphs are searched twice as wide as the candidates kept: with the
     * same width, kNN recall@10 against an exact scan fell from 0.96 at 10^5 memories to 0.83 at 10^6;
     * twice as wide brought it to 0.89 for 2.6 ms more at p99 (docs/benchmarks.md).
     */
    static final int LARGE_INDEX = 500_000;

    private static final Term HAS_CONTEXT = new Term(F_HAS_CONTEXT, "1");

    private final IndexSearcher searcher;
    private final QueryBuilder analysis;
    private final VectorDimensions dimensions;
    private final SearchQuery q;
    private final DocumentReader documents;
    private final Map<String, Integer> docsById = new HashMap<>();
    /**
     * The most documents a filter may hold for its lists to be made along the filter: BM25 scored document
     * by document ({@link #bm25}), kNN an exact scan of the filter's vectors ({@link FilteredVectorScan})
     * when the filter is also selective ({@link #scanVectors}).
     * Measured at 10^6 memories (a user's 5,000): one user's BM25 list 1.14 ms p50 that way against 1.63 ms
     * by skipping on score bounds, which pays off once the filter is large; the kNN list 0.96 ms against
     * 2.35 ms for Lucene's filtered query.
     */
    static final long SMALL_FILTER = 10_000;

    /** The query's filter, null when it matches every document ({@link ExactQueries.Filter}). */
    private final Query filter;
    /** Whether {@link #filter} holds at most {@link #SMALL_FILTER} documents: its BM25 lists are scored along it. */
    private final boolean smallFilter;
    /**
     * Whether the kNN lists are exact scans of the filter's vectors: a small filter holding at most a tenth
     * of the index, where the scan was measured. Over a broader filter a graph search meets a match every
     * few vectors and may read fewer than the filter holds, so Lucene's query is left to choose.
     */
    private final boolean scanVectors;
    /** {@link #filter} weighed for the scans, once per search: each model's and each vector field's list walks it. */
    private Weight scanFilter;

    /**
     * @param analysis turns the search text into the BM25 queries, with the index's analyzers
     * @param dimensions the dimensions of the index's vectors, to pick the models a query vector is compared with
     */
    HybridSearch(IndexSearcher searcher, QueryBuilder analysis, VectorDimensions dimensions, SearchQuery q)
            throws IOException {
        this.searcher = searcher;
        this.analysis = analysis;
        this.dimensions = dimensions;
        this.q = q;
        this.documents = new DocumentReader(searcher);
        ExactQueries.Filter filtered = ExactQueries.filter(q, searcher.getIndexReader());
        this.filter = filtered.query();
        this.smallFilter = filter != null && filtered.bound() <= SMALL_FILTER;
        this.scanVectors =
                smallFilter && filtered.bound() <= searcher.getIndexReader().maxDoc() / 10;
    }

    /**
     * The fused hits: the top {@code k} at or above {@code minScore}, or with {@code allCandidates} every
     * candidate of every list, for a fusion of several indexes' candidates ({@link MemoryIndex#candidates}).
     *
     * @param start when the search began ({@link System#nanoTime()}), for the timings' total
     */
    SearchResult run(boolean allCandidates, long start) throws IOException {
        int n = q.candidates();
        // Memories with context get two more lists; an index without any pays nothing for them.
        boolean contexts = searcher.getIndexReader().docFreq(HAS_CONTEXT) > 0;
        long t0 = System.nanoTime();
        List<HybridFusion.Scored> text = bm25(bm25Query(q.text(), F_TEXT_EN, F_TEXT_CJK));
        List<HybridFusion.Scored> contextText =
                contexts ? bm25(bm25Query(q.text(), F_CONTEXT_EN, F_CONTEXT_CJK)) : null;
        long t1 = System.nanoTime();
        List<HybridFusion.Scored> vector = null;
        List<HybridFusion.Scored> contextVector = null;
        float[] target = q.vectorValues();
        List<String> models = target == null ? List.of() : dimensions.modelsFor(q.vectorModel(), target.length);
        if (!models.isEmpty()) {
            int beam = searcher.getIndexReader().maxDoc() > LARGE_INDEX ? 2 * n : n;
            float[] unit = MemorySchema.unit(target);
            vector = cut(HybridFusion.dedup(knn(MemorySchema::vectorField, models, unit, beam)), n);
            if (contexts) {
                contextVector = contextVectors(vector, knn(MemorySchema::contextVectorField, models, unit, beam));
            }
        }
        long t2 = System.nanoTime();
        HybridFusion.Candidates candidates =
                new HybridFusion.Candidates(text, vector, contextText, contextVector, questions());
        List<HybridFusion.Fused> fused = allCandidates
                ? HybridFusion.fuse(q.ranking().fusion(), candidates, 0, Integer.MAX_VALUE)
                : HybridFusion.fuse(
                        q.ranking().fusion(), candidates, q.ranking().minScore(), q.k());
        long t3 = System.nanoTime();
        List<Hit> hits = hits(fused);
        long t4 = System.nanoTime();
        return new SearchResult(
                hits,
                new SearchResult.Timings(
                        micros(t1 - t0),
                        micros(t2 - t1),
                        micros(t3 - t2),
                        micros(t4 - t3),
                        micros(t4 - start),
                        text == null ? 0 : text.size(),
                        vector == null ? 0 : vector.size()));
    }

    /** BM25 over an English and a CJK field; null when the text has no searchable term (empty, only stop words). */
    private Query bm25Query(String text, String englishField, String cjkField) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Query en = analysis.createBooleanQuery(englishField, text, Occur.SHOULD);
        Query cjk = analysis.createBooleanQuery(cjkField, text, Occur.SHOULD);
        if (en == null || cjk == null) {
            return en != null ? en : cjk;
        }
        return new BooleanQuery.Builder()
                .add(en, Occur.SHOULD)
                .add(cjk, Occur.SHOULD)
                .build();
    }

    /** The top candidates of one BM25 query under the search's filter, or null without a query. */
    private List<HybridFusion.Scored> bm25(Query words) throws IOException {
        Query query = timeBoosted(words, q.text());
        if (query == null) {
            return null;
        }
        Query full = filter == null
                ? query
                : new BooleanQuery.Builder()
                        .add(query, Occur.MUST)
                        .add(filter, Occur.FILTER)
                        .build();
        // Counting every hit turns off the skipping on score bounds (MaxScore), which scores the words' postings
        // window by window and filters afterwards: under a small filter it is cheaper to walk the filter's
        // documents and score only those. The top candidates are the same either way.
        return scored(
                smallFilter
                        ? searcher.search(full, new TopScoreDocCollectorManager(q.candidates(), Integer.MAX_VALUE))
                        : searcher.search(full, q.candidates()),
                false);
    }

    /**
     * The text query, with memories said at a date the text names ({@link QueryTime}) scored higher:
     * the date adds to the words' score but finds nothing on its own.
     */
    private static Query timeBoosted(Query words, String text) {
        List<QueryTime.Term> terms = QueryTime.terms(text);
        if (words == null || terms.isEmpty()) {
            return words;
        }
        BooleanQuery.Builder when = new BooleanQuery.Builder();
        for (QueryTime.Term term : terms) {
            when.add(new TermQuery(new Term(MemorySchema.TIME_FIELDS.get(term.field()), term.value())), Occur.SHOULD);
        }
        return new BooleanQuery.Builder()
                .add(words, Occur.MUST)
                .add(new BoostQuery(new ConstantScoreQuery(when.build()), TIME_BOOST), Occur.SHOULD)
                .build();
    }

    /** The kNN candidates of each model's vector field ({@code field} of the model), model after model. */
    private List<HybridFusion.Scored> knn(UnaryOperator<String> field, List<String> models, float[] unit, int beam)
            throws IOException {
        List<HybridFusion.Scored> near = new ArrayList<>();
        for (String model : models) {
            // Under a small, selective filter the exact answer is the cheapest one (FilteredVectorScan).
            TopDocs top = scanVectors
                    ? FilteredVectorScan.nearest(searcher, scanFilter(), field.apply(model), unit, q.candidates())
                    : searcher.search(new KnnFloatVectorQuery(field.apply(model), unit, beam, filter), q.candidates());
            near.addAll(scored(top, true));
        }
        return near;
    }

    private Weight scanFilter() throws IOException {
        if (scanFilter == null) {
            scanFilter = FilteredVectorScan.weigh(searcher, filter);
        }
        return scanFilter;
    }

    /**
     * The context-vector list: the kNN candidates of the context vectors, and the memories without
     * context from the text-vector list (a memory without context is its own surroundings, so its
     * text vector stands in), ordered by cosine and cut to the candidates asked for.
     */
    private List<HybridFusion.Scored> contextVectors(
            List<HybridFusion.Scored> textVectors, List<HybridFusion.Scored> contextNear) throws IOException {
        List<HybridFusion.Scored> out = new ArrayList<>(contextNear);
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        for (HybridFusion.Scored candidate : textVectors) {
            int doc = docsById.get(candidate.id());
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
            NumericDocValues flags = leaf.reader().getNumericDocValues(F_HAS_CONTEXT);
            if (flags == null || !flags.advanceExact(doc - leaf.docBase)) {
                out.add(candidate);
            }
        }
        return cut(HybridFusion.dedup(out), q.candidates());
    }

    /**
     * The candidates whose text asks a question ({@link MemorySchema#F_QUESTION}), read in doc order with
     * one doc-values iterator per segment. Documents indexed before the flag existed count as statements.
     */
    private Set<String> questions() throws IOException {
        List<Map.Entry<String, Integer>> byDoc = new ArrayList<>(docsById.entrySet());
        byDoc.sort(Map.Entry.comparingByValue());
        Set<String> out = new HashSet<>();
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        LeafReaderContext leaf = null;
        NumericDocValues flags = null;
        for (Map.Entry<String, Integer> candidate : byDoc) {
            int doc = candidate.getValue();
            if (leaf == null || doc >= leaf.docBase + leaf.reader().maxDoc()) {
                leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
                flags = leaf.reader().getNumericDocValues(F_QUESTION);
            }
            if (flags != null && flags.advanceExact(doc - leaf.docBase)) {
                out.add(candidate.getKey());
            }
        }
        return out;
    }

    /** The fused candidates with their records, in fused order. */
    private List<Hit> hits(List<HybridFusion.Fused> fused) throws IOException {
        int[] hitDocs = new int[fused.size()];
        for (int i = 0; i < hitDocs.length; i++) {
            hitDocs[i] = docsById.get(fused.get(i).id());
        }
        MemoryRecord[] records = documents.records(hitDocs);
        List<Hit> hits = new ArrayList<>(fused.size());
        for (int i = 0; i < hitDocs.length; i++) {
            hits.add(Hit.of(records[i], fused.get(i)));
        }
        return hits;
    }

    /**
     * The ids and scores of the top docs (a vector score is turned back from Lucene's
     * (1 + cos) / 2 into the cosine); remembers each id's doc for fetching the hits.
     */
    private List<HybridFusion.Scored> scored(TopDocs top, boolean vector) throws IOException {
        ScoreDoc[] docs = top.scoreDocs;
        String[] ids = documents.ids(DocumentReader.docNumbers(docs));
        List<HybridFusion.Scored> out = new ArrayList<>(docs.length);
        for (int i = 0; i < docs.length; i++) {
            docsById.put(ids[i], docs[i].doc);
            out.add(new HybridFusion.Scored(ids[i], vector ? 2.0 * docs[i].score - 1.0 : docs[i].score));
        }
        return out;
    }

    private static <T> List<T> cut(List<T> list, int n) {
        return list.size() <= n ? list : list.subList(0, n);
    }

    private static long micros(long nanos) {
        return nanos / 1000;
    }
}
