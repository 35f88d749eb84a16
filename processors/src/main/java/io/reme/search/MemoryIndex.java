package io.reme.search;

import io.reme.json.Json;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.QueryBuilder;
import org.apache.lucene.util.Version;

/**
 * One Lucene index of {@link MemoryRecord}s, searched with BM25, kNN or both.
 *
 * <h2>Lifecycle</h2>
 * <ol>
 *   <li><b>Open</b> with {@link #open(Path)} (an {@link FSDirectory}; an existing index there is
 *       appended to), {@link #inMemory()} (a {@link ByteBuffersDirectory}, for tests and
 *       throwaway indexes) or {@link #open(Directory)} (the caller keeps ownership of the
 *       directory).</li>
 *   <li><b>Write</b> with {@link #upsert} and {@link #delete}. Both are keyed by the record id: an
 *       upsert replaces whatever was indexed under that id, so replaying the same records (a
 *       changelog restore) leaves the same index content and the same search results.</li>
 *   <li><b>Refresh</b> ({@link #refresh()}) makes the writes so far visible to {@link #search} and
 *       {@link #count()}; until then searches see the previous state. Refresh is cheap relative
 *       to a commit; call it after a batch, not per record.</li>
 *   <li><b>Commit</b> ({@link #commit()}) makes the writes durable on disk. Commit on the owner's
 *       commit (the Streams commit), not per record: on a crash, what was not committed is
 *       replayed from the topic.</li>
 *   <li><b>Close</b> ({@link #close()}) commits, then releases the writer, the searchers and the
 *       directory if this instance opened it.</li>
 * </ol>
 * All methods are safe to call from several threads; searches run concurrently with writes.
 *
 * <h2>Fields</h2>
 * {@code id}, {@code tenant}, {@code user}, {@code session}, {@code type}: exact terms.
 * {@code time}: a long point (epoch millis of {@link MemoryRecord#effectiveTime()}).
 * {@code text_en}: the text through {@link EnglishAnalyzer} (stop words, Porter stemming).
 * {@code text_cjk}: only the CJK runs of the text, as overlapping bigrams (a lone CJK character as a
 * unigram); other scripts are left to {@code text_en}. {@code vec.MODEL} and {@code vec_ctx.MODEL}: the vector of
 * the text and of the text with its context, normalised to unit length, in an HNSW graph per model
 * compared by dot product (= cosine); a vector without a model name goes to {@code vec} and
 * {@code vec_ctx}. One graph per model, because vectors of two models are not comparable: a graph
 * holding both would link and rank them against each other. {@code target}: exact term;
 * {@code meta}: each metadata entry as one exact term; {@code created_ms}, {@code updated_ms},
 * {@code conversation_ms}: long points with doc values, the keys {@link #list} filters and sorts by.
 * {@code src_b}: the record as JSON without its vector, to rebuild hits, and {@code id_b}: the id, both
 * in binary doc values (documents written before those existed keep the record in the stored field
 * {@code src}; see {@link DocumentReader}). Similarity is {@link BM25Similarity} with default
 * parameters (k1 1.2, b 0.75).
 *
 * <h2>Search</h2>
 * Every query is restricted to {@link SearchQuery#tenant()} and the query's other filters. The
 * text runs as one disjunction of its analysed terms over both text fields (scores add up). The
 * vector runs as an HNSW kNN search restricted by the same filter. Each list asks for
 * {@link SearchQuery#candidates()} = max(100, 10k) candidates (HNSW asked for only k misses
 * true neighbours), then {@link HybridFusion} fuses, applies {@code minScore} and keeps k. A query
 * vector against an index that holds no vectors yet runs as text only.
 *
 * <p>A query vector is compared with the vectors of its {@link SearchQuery#vectorModel() model} only;
 * one without a model name with the vectors of every model of its dimension. The vectors of one model
 * must all have the same dimension (its first one fixes it, at most 1024).
 *
 * <p>The {@linkplain #LAYOUT layout} of the fields is recorded in each commit point: an index written
 * with an older one is rebuilt from its source ({@link #outdated(Path)}). So is the {@linkplain
 * #embeddingProfile() embedding profile} its searches use, which its owner switches when a change of model
 * has given every memory the new model's vectors ({@link MemoryRecord#moreVectors()}).
 */
public final class MemoryIndex implements Closeable {
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

    private static final Term HAS_CONTEXT = new Term(F_HAS_CONTEXT, "1");
    /** The calendar terms of a record's effective time ({@link QueryTime}), one field each. */
    private static final Map<QueryTime.Field, String> TIME_FIELDS = Map.of(
            QueryTime.Field.DAY, "day",
            QueryTime.Field.MONTH, "month",
            QueryTime.Field.MONTH_OF_YEAR, "month_of_year",
            QueryTime.Field.YEAR, "year");
    /**
     * What a date the search text names adds to a memory said on it: about one more matching word of
     * middling rarity (BM25 scores of LoCoMo questions run 5-20 over 2-5 words), so the date breaks
     * ties between memories that share the words and never lifts one that shares none.
     */
    static final float TIME_BOOST = 2f;

    static final String F_VECTOR = "vec";
    private static final String UNNAMED_MODEL = "";
    /**
     * The version of the index's fields, recorded in every commit point: 2 since vectors live in a graph
     * per model ({@link #vectorField}); 1 (no record) before, when every model's vectors shared one.
     */
    public static final int LAYOUT = 2;

    private static final String LAYOUT_KEY = "reme.layout";
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
    static final int MAX_DIMENSION = 1024;
    /**
     * Above this many documents the graphs are searched twice as wide as the candidates kept: with the
     * same width, kNN recall@10 against an exact scan fell from 0.96 at 10^5 memories to 0.83 at 10^6;
     * twice as wide brought it to 0.89 for 2.6 ms more at p99 (docs/benchmarks.md).
     */
    static final int LARGE_INDEX = 500_000;

    /** The indexing buffer between flushes while applying live writes. */
    public static final double LIVE_BUFFER_MB = 64;

    /** The commit user data key holding the source offset a commit point contains up to. */
    private static final String COMMITTED_OFFSET = "reme.committed-offset";
    /** The commit user data key holding the embedding profile searches use ({@link #embeddingProfile}). */
    private static final String EMBEDDING_PROFILE = "reme.embedding-profile";

    private final Directory directory;
    private final boolean ownsDirectory;
    private final Analyzer analyzer;
    private final Similarity similarity = new BM25Similarity();
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final QueryBuilder queryBuilder;
    /** The dimension of each vector field's vectors, by field name. */
    private final Map<String, Integer> dimensions = new ConcurrentHashMap<>();
    /** The layout of the index's fields, written with every commit: {@link #LAYOUT} unless opened on an older index. */
    private final int layout;
    /** The embedding profile searches use, written with every commit; null until one is set. */
    private volatile String embeddingProfile;

    private MemoryIndex(Directory directory, boolean ownsDirectory) throws IOException {
        this.directory = directory;
        this.ownsDirectory = ownsDirectory;
        this.analyzer = newAnalyzer();
        IndexWriterConfig config = new IndexWriterConfig(analyzer)
                .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
                .setSimilarity(similarity)
                .setRAMBufferSizeMB(LIVE_BUFFER_MB)
                .setMergePolicy(mergePolicy())
                // Only commit(offset) commits: a commit point on close would hold writes past its recorded offset.
                .setCommitOnClose(false);
        this.writer = new IndexWriter(directory, config);
        this.searchers = new SearcherManager(writer, true, false, new SearcherFactory() {
            @Override
            public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setSimilarity(similarity);
                return searcher;
            }
        });
        this.queryBuilder = new QueryBuilder(analyzer);
        this.dimensions.putAll(indexedDimensions());
        boolean exists = DirectoryReader.indexExists(directory);
        SegmentInfos latest = exists ? SegmentInfos.readLatestCommit(directory) : null;
        this.layout = exists ? layoutOf(latest) : LAYOUT;
        this.embeddingProfile = exists ? latest.getUserData().get(EMBEDDING_PROFILE) : null;
    }

    private static int layoutOf(SegmentInfos commit) {
        String value = commit.getUserData().get(LAYOUT_KEY);
        return value == null ? 1 : Integer.parseInt(value);
    }

    /** The field of the vectors of {@code model}'s texts: one per model. */
    static String vectorField(String model) {
        return model == null || model.isEmpty() ? F_VECTOR : F_VECTOR + "." + model;
    }

    /** The field of the vectors of {@code model}'s texts with their context. */
    static String contextVectorField(String model) {
        return model == null || model.isEmpty() ? F_CONTEXT_VECTOR : F_CONTEXT_VECTOR + "." + model;
    }

    /**
     * Lucene's tiered policy with small segments merged more eagerly (floor 16 MB, as Lucene 10 does,
     * against 2 MB): a kNN search walks every segment's graph, and the store commits small segments at
     * every Streams commit. Measured at 10^5 memories committed every 1,000 (docs/benchmarks.md): 5
     * segments instead of 18, search CPU p99 7.6 ms instead of 12.2, indexing 6 % slower. Fewer
     * segments per tier (4) gave no fewer segments and slower indexing.
     */
    private static TieredMergePolicy mergePolicy() {
        TieredMergePolicy policy = new TieredMergePolicy();
        policy.setFloorSegmentMB(16);
        // Lucene 9's 10 segments per tier, which the figures were measured with (Lucene 10's default is 8).
        policy.setSegmentsPerTier(10);
        // Only an erasure asks for a merge of deletes, and it must leave no deleted document in any file.
        policy.setForceMergeDeletesPctAllowed(0);
        return policy;
    }

    /** Opens (or creates) the index in a folder. */
    public static MemoryIndex open(Path folder) throws IOException {
        FSDirectory dir = FSDirectory.open(folder);
        try {
            return new MemoryIndex(dir, true);
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /**
     * Whether the folder holds an index created by an older major version of Lucene (Lucene 9, written
     * before this version of the service). Lucene reads such an index only through its backward codecs,
     * and never once the next major version is out, so its owner rebuilds it from its source instead of
     * opening it. False when the folder holds no index.
     */
    public static boolean createdByOlderLucene(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (FSDirectory dir = FSDirectory.open(folder)) {
            if (!DirectoryReader.indexExists(dir)) {
                return false;
            }
            // Reads the commit's header only: the version that created the index is checked before any codec.
            SegmentInfos.readLatestCommit(dir, Version.LATEST.major);
            return false;
        } catch (IndexFormatTooOldException e) {
            return true;
        }
    }

    /**
     * Whether the folder holds an index its owner rebuilds from its source instead of opening: one an older
     * Lucene created ({@link #createdByOlderLucene}), or one whose fields are of an older {@link #LAYOUT}
     * (search would miss its vectors). False when the folder holds no index.
     */
    public static boolean outdated(Path folder) throws IOException {
        if (createdByOlderLucene(folder)) {
            return true;
        }
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (FSDirectory dir = FSDirectory.open(folder)) {
            return DirectoryReader.indexExists(dir) && layoutOf(SegmentInfos.readLatestCommit(dir)) < LAYOUT;
        }
    }

    /**
     * Whether the incubating vector module is in the boot layer ({@code --add-modules jdk.incubator.vector}):
     * without it Lucene compares vectors one float at a time instead of with SIMD instructions.
     */
    public static boolean vectorModuleEnabled() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    }

    /** Opens (or creates) the index in a directory the caller keeps and closes. */
    public static MemoryIndex open(Directory directory) throws IOException {
        return new MemoryIndex(directory, false);
    }

    /** A new empty index in memory. */
    public static MemoryIndex inMemory() {
        try {
            return new MemoryIndex(new ByteBuffersDirectory(), true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- writes ---------------------------------------------------------------------------------

    /**
     * Indexes the record, replacing any record with the same id. Visible to searches after
     * {@link #refresh()}, durable after {@link #commit()}.
     *
     * @throws IllegalArgumentException if its vector's dimension differs from the index's
     */
    public void upsert(MemoryRecord record) throws IOException {
        writer.updateDocument(new Term(F_KEY, key(record.tenant(), record.id())), toDocument(record));
    }

    /**
     * Sets the indexing buffer: a larger one while restoring from the topic flushes larger segments, so
     * that fewer merges build each vector's graph again. Takes effect at the next write.
     */
    public void bufferMegabytes(double megabytes) {
        writer.getConfig().setRAMBufferSizeMB(megabytes);
    }

    /** Removes the tenant's record with this id, if any. Visible after {@link #refresh()}. */
    public void delete(String tenant, String id) throws IOException {
        writer.deleteDocuments(new Term(F_KEY, key(tenant, id)));
    }

    private static String key(String tenant, String id) {
        return tenant + "/" + id;
    }

    /** Makes every write so far durable; the commit point keeps the offset the last one recorded, if any. */
    public void commit() throws IOException {
        Map<String, String> data = new HashMap<>();
        Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
        if (live != null) {
            live.forEach(e -> data.put(e.getKey(), e.getValue()));
        }
        data.put(LAYOUT_KEY, Integer.toString(layout));
        putProfile(data);
        writer.setLiveCommitData(data.entrySet());
        writer.commit();
    }

    private void putProfile(Map<String, String> data) {
        String profile = embeddingProfile;
        if (profile != null) {
            data.put(EMBEDDING_PROFILE, profile);
        }
    }

    /**
     * The embedding profile searches of this index use (a model, or models routed by script: the
     * configured {@code EmbeddingModel}'s profile), as of the writes so far; null for an index that never
     * recorded one. Durable with the next commit, in the same commit point as the documents and the offset,
     * so after a crash the profile and the vectors the index holds agree.
     */
    public String embeddingProfile() {
        return embeddingProfile;
    }

    /** Sets the profile searches use from now on; recorded by the next commit. */
    public void embeddingProfile(String profile) {
        this.embeddingProfile = profile;
    }

    /**
     * Makes every write so far durable in one commit point that records {@code offset}, the source
     * offset of the last write applied. A crash at any moment leaves the index at a commit point whose
     * documents are exactly the writes up to the offset it records (Lucene switches commit points
     * atomically), so the writes after it are the ones to replay.
     */
    public void commit(long offset) throws IOException {
        Map<String, String> data = new HashMap<>();
        data.put(COMMITTED_OFFSET, Long.toString(offset));
        data.put(LAYOUT_KEY, Integer.toString(layout));
        putProfile(data);
        writer.setLiveCommitData(data.entrySet());
        writer.commit();
    }

    /**
     * The offset the last commit point recorded ({@link #commit(long)}), -1 for a new index that holds
     * no commit point at all, or empty for one committed without an offset (by a version of the
     * service before offsets were recorded), whose content is not known.
     */
    public OptionalLong committedOffset() throws IOException {
        if (!DirectoryReader.indexExists(directory)) {
            return OptionalLong.of(-1);
        }
        Iterable<Map.Entry<String, String>> data = writer.getLiveCommitData();
        if (data != null) {
            for (Map.Entry<String, String> entry : data) {
                if (entry.getKey().equals(COMMITTED_OFFSET)) {
                    return OptionalLong.of(Long.parseLong(entry.getValue()));
                }
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Rewrites every segment that holds deleted documents, so that their text and vectors leave the
     * index's files once the next commit drops the old segments. Costs a rewrite of those segments only:
     * an erasure's memories are usually in a few of them. False if deleted documents remained after
     * {@code atMost}.
     */
    public boolean expungeDeletes(Duration atMost) throws IOException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (true) {
            writer.forceMergeDeletes(true);
            // A merge that Lucene's own policy started on such a segment is not this call's to wait for, and
            // leaves the deleted documents in place until it ends: wait for it, then ask again.
            if (!writer.hasDeletions() && !merging()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while expunging deleted documents");
            }
        }
    }

    /** Whether any segment still holds a deleted document (or a delete not yet applied). */
    public boolean hasDeletions() {
        return writer.hasDeletions();
    }

    /**
     * Deletes the files no commit point and no open reader needs any more: the writer deletes them only
     * when it next checkpoints, and a reader released by a refresh does not make it do so.
     */
    public void deleteUnusedFiles() throws IOException {
        writer.deleteUnusedFiles();
    }

    /** Makes every write so far visible to searches; blocks until it is. */
    public void refresh() throws IOException {
        searchers.maybeRefreshBlocking();
    }

    /** Whether segment merges are waiting or running; a refresh after they end shows the merged segments. */
    public boolean merging() {
        return writer.hasPendingMerges()
                || (writer.getConfig().getMergeScheduler() instanceof ConcurrentMergeScheduler scheduler
                        && scheduler.mergeThreadCount() > 0);
    }

    /** Number of segments searches walk (as of the last refresh): each one is a kNN graph of its own. */
    public int segmentCount() throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            return searcher.getIndexReader().leaves().size();
        } finally {
            searchers.release(searcher);
        }
    }

    /** Number of records visible to searches (as of the last refresh). */
    public int count() throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            return searcher.getIndexReader().numDocs();
        } finally {
            searchers.release(searcher);
        }
    }

    /** Number of the tenant's records visible to searches (as of the last refresh). */
    public int count(String tenant) throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            return searcher.count(new TermQuery(new Term(F_TENANT, tenant)));
        } finally {
            searchers.release(searcher);
        }
    }

    /** Dimension of the indexed vectors of {@code model} (null: vectors without a model name), 0 when it has none. */
    public int vectorDimension(String model) {
        return dimensions.getOrDefault(vectorField(model), 0);
    }

    /** English for {@code text_en}, CJK bigrams for {@code text_cjk}, keywords left to their field types. */
    static Analyzer newAnalyzer() {
        return new PerFieldAnalyzerWrapper(
                new EnglishAnalyzer(),
                Map.of(F_TEXT_CJK, new CjkBigramAnalyzer(), F_CONTEXT_CJK, new CjkBigramAnalyzer()));
    }

    Document toDocument(MemoryRecord r) {
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
            addVectors(doc, r.vectorModel(), vector, r.contextVector());
        }
        for (MemoryRecord.ModelVectors more : r.moreVectors()) {
            if (!more.model().equals(r.vectorModel())) {
                addVectors(doc, more.model(), more.vector(), more.contextVector());
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

    private void addVectors(Document doc, String model, float[] vector, float[] contextVector) {
        String field = vectorField(model);
        checkDimension(field, vector.length, true);
        doc.add(new KnnFloatVectorField(field, unit(vector), VectorSimilarityFunction.DOT_PRODUCT));
        if (contextVector != null) {
            String contextField = contextVectorField(model);
            checkDimension(contextField, contextVector.length, true);
            doc.add(new KnnFloatVectorField(contextField, unit(contextVector), VectorSimilarityFunction.DOT_PRODUCT));
        }
    }

    /** Checks a vector's length against its field's (fixing the field's with {@code fix} if it has none yet). */
    private void checkDimension(String field, int length, boolean fix) {
        if (length > MAX_DIMENSION) {
            throw new IllegalArgumentException("vector dimension " + length + " is above " + MAX_DIMENSION);
        }
        Integer current = fix ? dimensions.computeIfAbsent(field, f -> length) : dimensions.get(field);
        if (current != null && current != length) {
            throw new IllegalArgumentException("vector dimension " + length + " differs from the dimension " + current
                    + " of the index's vectors of " + (field.equals(F_VECTOR) ? "no named model" : field));
        }
    }

    private Map<String, Integer> indexedDimensions() throws IOException {
        Map<String, Integer> out = new HashMap<>();
        IndexSearcher searcher = searchers.acquire();
        try {
            for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                for (FieldInfo info : leaf.reader().getFieldInfos()) {
                    if (info.getVectorDimension() > 0) {
                        out.put(info.name, info.getVectorDimension());
                    }
                }
            }
            return out;
        } finally {
            searchers.release(searcher);
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

    // ---- search ---------------------------------------------------------------------------------

    /** Runs the query against the state of the last refresh. */
    public SearchResult search(SearchQuery q) throws IOException {
        return run(q, false);
    }

    /**
     * Every candidate of both lists (up to {@link SearchQuery#candidates()} each), with its raw
     * scores, for a coordinator that fuses several indexes' candidates again
     * ({@link PartitionMerge}): neither {@code k} nor {@code minScore} is applied here, since both
     * only mean something after the final fusion.
     */
    public SearchResult candidates(SearchQuery q) throws IOException {
        return run(q, true);
    }

    private SearchResult run(SearchQuery q, boolean allCandidates) throws IOException {
        long start = System.nanoTime();
        IndexSearcher searcher = searchers.acquire();
        try {
            Query filter = filter(q, searcher.getIndexReader());
            int n = q.candidates();
            DocumentReader documents = new DocumentReader(searcher);
            Map<String, Integer> docsById = new HashMap<>();

            // Memories with context get two more lists; an index without any pays nothing for them.
            boolean contexts = searcher.getIndexReader().docFreq(HAS_CONTEXT) > 0;
            long t0 = System.nanoTime();
            List<HybridFusion.Scored> text = bm25List(searcher, documents, docsById, textQuery(q.text()), q, filter);
            List<HybridFusion.Scored> contextText =
                    contexts ? bm25List(searcher, documents, docsById, contextQuery(q.text()), q, filter) : null;
            long t1 = System.nanoTime();
            List<HybridFusion.Scored> vector = null;
            List<HybridFusion.Scored> contextVector = null;
            float[] target = q.vector();
            List<String> models = target == null ? List.of() : modelsFor(q.vectorModel(), target.length);
            if (!models.isEmpty()) {
                int beam = searcher.getIndexReader().maxDoc() > LARGE_INDEX ? 2 * n : n;
                float[] unit = unit(target);
                List<HybridFusion.Scored> near = new ArrayList<>();
                List<HybridFusion.Scored> nearInContext = new ArrayList<>();
                for (String model : models) {
                    near.addAll(scored(
                            documents,
                            searcher.search(new KnnFloatVectorQuery(vectorField(model), unit, beam, filter), n),
                            docsById,
                            true));
                    if (contexts) {
                        nearInContext.addAll(scored(
                                documents,
                                searcher.search(
                                        new KnnFloatVectorQuery(contextVectorField(model), unit, beam, filter), n),
                                docsById,
                                true));
                    }
                }
                vector = cut(HybridFusion.dedup(near), n);
                if (contexts) {
                    contextVector = contextVectors(searcher, docsById, vector, nearInContext, n);
                }
            }
            long t2 = System.nanoTime();
            HybridFusion.Candidates candidates = new HybridFusion.Candidates(
                    text, vector, contextText, contextVector, questions(searcher, docsById));
            List<HybridFusion.Fused> fused = allCandidates
                    ? HybridFusion.fuse(q.fusion(), candidates, 0, Integer.MAX_VALUE)
                    : HybridFusion.fuse(q.fusion(), candidates, q.minScore(), q.k());
            long t3 = System.nanoTime();
            int[] hitDocs = new int[fused.size()];
            for (int i = 0; i < hitDocs.length; i++) {
                hitDocs[i] = docsById.get(fused.get(i).id());
            }
            MemoryRecord[] records = documents.records(hitDocs);
            List<Hit> hits = new ArrayList<>(fused.size());
            for (int i = 0; i < hitDocs.length; i++) {
                hits.add(Hit.of(records[i], fused.get(i)));
            }
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
        } finally {
            searchers.release(searcher);
        }
    }

    /** The tenant's record with this id, without its vector, or null. Sees the state of the last refresh. */
    public MemoryRecord get(String tenant, String id) throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            TopDocs top = searcher.search(new TermQuery(new Term(F_KEY, key(tenant, id))), 1);
            if (top.scoreDocs.length == 0) {
                return null;
            }
            return new DocumentReader(searcher).records(new int[] {top.scoreDocs[0].doc})[0];
        } finally {
            searchers.release(searcher);
        }
    }

    /**
     * The ids of every memory an erasure of {@code user} removes: the user's own and the personal memories
     * about them; with {@code user} null, every memory of the tenant. Sees the state of the last refresh.
     */
    public List<String> idsOf(String tenant, String user) throws IOException {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        b.add(new TermQuery(new Term(F_TENANT, tenant)), Occur.FILTER);
        if (user != null) {
            Query about = new BooleanQuery.Builder()
                    .add(new TermQuery(new Term(F_TYPE, MemoryType.PERSONAL.name())), Occur.FILTER)
                    .add(new TermQuery(new Term(F_TARGET, user)), Occur.FILTER)
                    .build();
            b.add(
                    new BooleanQuery.Builder()
                            .add(new TermQuery(new Term(F_USER, user)), Occur.SHOULD)
                            .add(about, Occur.SHOULD)
                            .setMinimumNumberShouldMatch(1)
                            .build(),
                    Occur.FILTER);
        }
        Query query = new ConstantScoreQuery(b.build());
        IndexSearcher searcher = searchers.acquire();
        try {
            int count = searcher.count(query);
            if (count == 0) {
                return List.of();
            }
            TopDocs top = searcher.search(query, count);
            return List.of(new DocumentReader(searcher).ids(docNumbers(top.scoreDocs)));
        } finally {
            searchers.release(searcher);
        }
    }

    /** One page of the tenant's records (without vectors) in the query's order. Sees the state of the last refresh. */
    public List<MemoryRecord> list(MemoryListQuery q) throws IOException {
        String field = sortField(q.sort());
        BooleanQuery.Builder b = exactFilters(q.tenant(), q.types(), q.users(), q.targets());
        for (Map.Entry<String, String> entry : q.metadata().entrySet()) {
            b.add(new TermQuery(new Term(F_META, entry.getKey() + META_SEPARATOR + entry.getValue())), Occur.FILTER);
        }
        if (q.from() != null || q.to() != null) {
            long lo = q.from() == null ? Long.MIN_VALUE : q.from().toEpochMilli();
            long hi = q.to() == null ? Long.MAX_VALUE : q.to().toEpochMilli() - 1;
            b.add(LongPoint.newRangeQuery(field, lo, hi), Occur.FILTER);
        }
        if (q.after() != null) {
            b.add(after(field, q.after(), q.descending()), Occur.FILTER);
        }
        Sort sort = new Sort(
                new SortField(field, SortField.Type.LONG, q.descending()),
                new SortField(F_ID, SortField.Type.STRING, q.descending()));
        IndexSearcher searcher = searchers.acquire();
        try {
            TopDocs top = searcher.search(new ConstantScoreQuery(b.build()), q.limit(), sort);
            return List.of(new DocumentReader(searcher).records(docNumbers(top.scoreDocs)));
        } finally {
            searchers.release(searcher);
        }
    }

    /** What comes strictly after {@code position} in the order: a later value, or the same value and a later id. */
    private static Query after(String field, MemoryListQuery.Position position, boolean descending) {
        long v = position.value();
        BytesRef id = new BytesRef(position.id());
        Query laterValue = descending
                ? (v == Long.MIN_VALUE
                        ? MatchNoDocsQuery.INSTANCE
                        : LongPoint.newRangeQuery(field, Long.MIN_VALUE, v - 1))
                : (v == Long.MAX_VALUE
                        ? MatchNoDocsQuery.INSTANCE
                        : LongPoint.newRangeQuery(field, v + 1, Long.MAX_VALUE));
        Query laterId = descending
                ? new TermRangeQuery(F_ID, null, id, true, false)
                : new TermRangeQuery(F_ID, id, null, false, true);
        Query sameValue = new BooleanQuery.Builder()
                .add(LongPoint.newExactQuery(field, v), Occur.FILTER)
                .add(laterId, Occur.FILTER)
                .build();
        return new BooleanQuery.Builder()
                .add(laterValue, Occur.SHOULD)
                .add(sameValue, Occur.SHOULD)
                .setMinimumNumberShouldMatch(1)
                .build();
    }

    static String sortField(MemoryListQuery.Sort sort) {
        return switch (sort) {
            case CREATED -> F_CREATED;
            case UPDATED -> F_UPDATED;
            case CONVERSATION -> F_CONVERSATION;
        };
    }

    private static long micros(long nanos) {
        return nanos / 1000;
    }

    /**
     * The query's filters; null when they match every document, which is common (a partition holding
     * one tenant's memories and no other filter) and worth knowing: a kNN search with a filter first
     * collects the filter's documents into a bit set and a BM25 search intersects with it, both
     * costs growing with the index, for nothing. Deleted documents count as the tenant's only if they
     * were, so the shortcut never lets another tenant's memory through.
     */
    private Query filter(SearchQuery q, IndexReader reader) throws IOException {
        boolean onlyTenant = q.types().isEmpty()
                && q.users().isEmpty()
                && q.targets().isEmpty()
                && q.sessions().isEmpty()
                && q.from() == null
                && q.to() == null;
        if (onlyTenant && reader.maxDoc() > 0 && reader.docFreq(new Term(F_TENANT, q.tenant())) == reader.maxDoc()) {
            return null;
        }
        BooleanQuery.Builder b = exactFilters(q.tenant(), q.types(), q.users(), q.targets());
        if (!q.sessions().isEmpty()) {
            b.add(termSet(F_SESSION, q.sessions()), Occur.FILTER);
        }
        if (q.from() != null || q.to() != null) {
            long lo = q.from() == null ? Long.MIN_VALUE : q.from().toEpochMilli();
            long hi = q.to() == null ? Long.MAX_VALUE : q.to().toEpochMilli() - 1;
            b.add(LongPoint.newRangeQuery(F_TIME, lo, hi), Occur.FILTER);
        }
        return b.build();
    }

    /**
     * The models whose vectors a query vector of this length is compared with: its own model, or with no
     * model named every model of that length; none when the index holds no vectors of them yet.
     *
     * @throws IllegalArgumentException when the index holds vectors of the model (any model, unnamed) but
     *     of another length
     */
    private List<String> modelsFor(String model, int length) {
        if (model != null && !model.isEmpty()) {
            checkDimension(vectorField(model), length, false);
            return dimensions.containsKey(vectorField(model)) ? List.of(model) : List.of();
        }
        List<String> models = new ArrayList<>();
        boolean any = false;
        for (Map.Entry<String, Integer> field : dimensions.entrySet()) {
            String name = field.getKey();
            String named = name.equals(F_VECTOR)
                    ? UNNAMED_MODEL
                    : name.startsWith(F_VECTOR + ".") ? name.substring(F_VECTOR.length() + 1) : null;
            any |= named != null;
            if (named != null && field.getValue() == length) {
                models.add(named);
            }
        }
        if (any && models.isEmpty()) {
            throw new IllegalArgumentException(
                    "vector dimension " + length + " differs from the dimension of every model's vectors in the index");
        }
        models.sort(null);
        return models;
    }

    private static <T> List<T> cut(List<T> list, int n) {
        return list.size() <= n ? list : list.subList(0, n);
    }

    /** Tenant, and the type, user and target filters that are not empty. */
    private static BooleanQuery.Builder exactFilters(
            String tenant, Set<MemoryType> types, Set<String> users, Set<String> targets) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        b.add(new TermQuery(new Term(F_TENANT, tenant)), Occur.FILTER);
        if (!types.isEmpty()) {
            b.add(termSet(F_TYPE, types.stream().map(Enum::name).toList()), Occur.FILTER);
        }
        if (!users.isEmpty()) {
            b.add(termSet(F_USER, users), Occur.FILTER);
        }
        if (!targets.isEmpty()) {
            b.add(termSet(F_TARGET, targets), Occur.FILTER);
        }
        return b;
    }

    private static Query termSet(String field, Collection<String> values) {
        return new TermInSetQuery(
                field, values.stream().sorted().map(BytesRef::new).toList());
    }

    /** BM25 over both text fields; null when the text has no searchable term (empty, only stop words). */
    Query textQuery(String text) {
        return bm25(text, F_TEXT_EN, F_TEXT_CJK);
    }

    /** BM25 over the text-with-context fields, as {@link #textQuery} over the text ones. */
    Query contextQuery(String text) {
        return bm25(text, F_CONTEXT_EN, F_CONTEXT_CJK);
    }

    private Query bm25(String text, String englishField, String cjkField) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Query en = queryBuilder.createBooleanQuery(englishField, text, Occur.SHOULD);
        Query cjk = queryBuilder.createBooleanQuery(cjkField, text, Occur.SHOULD);
        if (en == null || cjk == null) {
            return en != null ? en : cjk;
        }
        return new BooleanQuery.Builder()
                .add(en, Occur.SHOULD)
                .add(cjk, Occur.SHOULD)
                .build();
    }

    /**
     * The context-vector list: the kNN candidates of the context vectors, and the memories without
     * context from the text-vector list (a memory without context is its own surroundings, so its
     * text vector stands in), ordered by cosine and cut to {@code n}.
     */
    private static List<HybridFusion.Scored> contextVectors(
            IndexSearcher searcher,
            Map<String, Integer> docsById,
            List<HybridFusion.Scored> textVectors,
            List<HybridFusion.Scored> contextNear,
            int n)
            throws IOException {
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
        return cut(HybridFusion.dedup(out), n);
    }

    /**
     * The candidates whose text asks a question ({@link #F_QUESTION}), read in doc order with one
     * doc-values iterator per segment. Documents indexed before the flag existed count as statements.
     */
    private static Set<String> questions(IndexSearcher searcher, Map<String, Integer> docsById) throws IOException {
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

    /** The top candidates of one BM25 query under the search's filter, or null without a query. */
    private static List<HybridFusion.Scored> bm25List(
            IndexSearcher searcher,
            DocumentReader documents,
            Map<String, Integer> docsById,
            Query words,
            SearchQuery q,
            Query filter)
            throws IOException {
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
        return scored(documents, searcher.search(full, q.candidates()), docsById, false);
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
            when.add(new TermQuery(new Term(TIME_FIELDS.get(term.field()), term.value())), Occur.SHOULD);
        }
        return new BooleanQuery.Builder()
                .add(words, Occur.MUST)
                .add(new BoostQuery(new ConstantScoreQuery(when.build()), TIME_BOOST), Occur.SHOULD)
                .build();
    }

    /**
     * The ids and scores of the top docs (a vector score is turned back from Lucene's
     * (1 + cos) / 2 into the cosine); remembers each id's doc for fetching the hits.
     */
    private static List<HybridFusion.Scored> scored(
            DocumentReader documents, TopDocs top, Map<String, Integer> docsById, boolean vector) throws IOException {
        ScoreDoc[] docs = top.scoreDocs;
        String[] ids = documents.ids(docNumbers(docs));
        List<HybridFusion.Scored> out = new ArrayList<>(docs.length);
        for (int i = 0; i < docs.length; i++) {
            docsById.put(ids[i], docs[i].doc);
            out.add(new HybridFusion.Scored(ids[i], vector ? 2.0 * docs[i].score - 1.0 : docs[i].score));
        }
        return out;
    }

    private static int[] docNumbers(ScoreDoc[] docs) {
        int[] numbers = new int[docs.length];
        for (int i = 0; i < docs.length; i++) {
            numbers[i] = docs[i].doc;
        }
        return numbers;
    }

    @Override
    public void close() throws IOException {
        try {
            searchers.close();
        } finally {
            try {
                writer.close();
            } finally {
                analyzer.close();
                if (ownsDirectory) {
                    directory.close();
                }
            }
        }
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
