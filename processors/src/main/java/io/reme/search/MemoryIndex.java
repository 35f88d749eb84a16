package io.reme.search;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
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
 * One document per record, its id (per tenant) the key: the fields and their analyzers are
 * {@link MemorySchema}'s. Similarity is {@link BM25Similarity} with default parameters (k1 1.2, b 0.75).
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
    /**
     * The version of the index's fields, recorded in every commit point: 2 since vectors live in a graph
     * per model ({@link MemorySchema#vectorField}); 1 (no record) before, when every model's vectors shared one.
     */
    public static final int LAYOUT = 2;

    private static final String LAYOUT_KEY = "reme.layout";

    /** The indexing buffer between flushes while applying live writes. */
    public static final double LIVE_BUFFER_MB = 64;

    /** The commit user data key holding the source offset a commit point contains up to. */
    private static final String COMMITTED_OFFSET = "reme.committed-offset";
    /** The commit user data key holding the embedding profile searches use ({@link #embeddingProfile}). */
    private static final String EMBEDDING_PROFILE = "reme.embedding-profile";

    private final Directory directory;
    private final boolean ownsDirectory;
    private final Analyzer analyzer;
    private final IndexWriter writer;
    private final MemorySearcher searcher;
    /** The dimension of each vector field, fixed by the writes and read by the searches. */
    private final VectorDimensions dimensions;
    /** The layout of the index's fields, written with every commit: {@link #LAYOUT} unless opened on an older index. */
    private final int layout;
    /** The embedding profile searches use, written with every commit; null until one is set. */
    private volatile String embeddingProfile;

    private MemoryIndex(Directory directory, boolean ownsDirectory) throws IOException {
        this.directory = directory;
        this.ownsDirectory = ownsDirectory;
        this.analyzer = MemorySchema.newAnalyzer();
        Similarity similarity = new BM25Similarity();
        IndexWriterConfig config = new IndexWriterConfig(analyzer)
                .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
                .setSimilarity(similarity)
                .setRAMBufferSizeMB(LIVE_BUFFER_MB)
                .setMergePolicy(mergePolicy())
                // Only commit(offset) commits: a commit point on close would hold writes past its recorded offset.
                .setCommitOnClose(false);
        this.writer = new IndexWriter(directory, config);
        this.searcher = new MemorySearcher(writer, analyzer, similarity);
        this.dimensions = searcher.dimensions();
        boolean exists = DirectoryReader.indexExists(directory);
        SegmentInfos latest = exists ? SegmentInfos.readLatestCommit(directory) : null;
        this.layout = exists ? layoutOf(latest) : LAYOUT;
        this.embeddingProfile = exists ? latest.getUserData().get(EMBEDDING_PROFILE) : null;
    }

    private static int layoutOf(SegmentInfos commit) {
        String value = commit.getUserData().get(LAYOUT_KEY);
        return value == null ? 1 : Integer.parseInt(value);
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
        writer.updateDocument(
                new Term(MemorySchema.F_KEY, MemorySchema.key(record.tenant(), record.id())),
                MemorySchema.toDocument(record, dimensions));
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
        writer.deleteDocuments(new Term(MemorySchema.F_KEY, MemorySchema.key(tenant, id)));
    }

    /** Makes every write so far durable; the commit point keeps the offset the last one recorded, if any. */
    public void commit() throws IOException {
        Map<String, String> data = new HashMap<>();
        Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
        if (live != null) {
            live.forEach(e -> data.put(e.getKey(), e.getValue()));
        }
        commit(data);
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
        commit(data);
    }

    /** Commits with {@code data} and the layout and embedding profile as the commit point's user data. */
    private void commit(Map<String, String> data) throws IOException {
        data.put(LAYOUT_KEY, Integer.toString(layout));
        String profile = embeddingProfile;
        if (profile != null) {
            data.put(EMBEDDING_PROFILE, profile);
        }
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
        searcher.refresh();
    }

    /** Whether segment merges are waiting or running; a refresh after they end shows the merged segments. */
    public boolean merging() {
        return writer.hasPendingMerges()
                || (writer.getConfig().getMergeScheduler() instanceof ConcurrentMergeScheduler scheduler
                        && scheduler.mergeThreadCount() > 0);
    }

    // ---- reads ----------------------------------------------------------------------------------

    /** Runs the query against the state of the last refresh. */
    public SearchResult search(SearchQuery q) throws IOException {
        return searcher.search(q, false);
    }

    /**
     * Every candidate of both lists (up to {@link SearchQuery#candidates()} each), with its raw
     * scores, for a coordinator that fuses several indexes' candidates again
     * ({@link PartitionMerge}): neither {@code k} nor {@code minScore} is applied here, since both
     * only mean something after the final fusion.
     */
    public SearchResult candidates(SearchQuery q) throws IOException {
        return searcher.search(q, true);
    }

    /** The tenant's record with this id, without its vector, or null. Sees the state of the last refresh. */
    public MemoryRecord get(String tenant, String id) throws IOException {
        return searcher.get(tenant, id);
    }

    /**
     * The ids of every memory an erasure of {@code user} removes: the user's own and the personal memories
     * about them; with {@code user} null, every memory of the tenant. Sees the state of the last refresh.
     */
    public List<String> idsOf(String tenant, String user) throws IOException {
        return searcher.idsOf(tenant, user);
    }

    /** One page of the tenant's records (without vectors) in the query's order. Sees the state of the last refresh. */
    public List<MemoryRecord> list(MemoryListQuery q) throws IOException {
        return searcher.list(q);
    }

    /** Number of segments searches walk (as of the last refresh): each one is a kNN graph of its own. */
    public int segmentCount() throws IOException {
        return searcher.segmentCount();
    }

    /** Number of records visible to searches (as of the last refresh). */
    public int count() throws IOException {
        return searcher.count();
    }

    /** Number of the tenant's records visible to searches (as of the last refresh). */
    public int count(String tenant) throws IOException {
        return searcher.count(tenant);
    }

    /** Dimension of the indexed vectors of {@code model} (null: vectors without a model name), 0 when it has none. */
    public int vectorDimension(String model) {
        return dimensions.of(model);
    }

    @Override
    public void close() throws IOException {
        try {
            searcher.close();
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
}
