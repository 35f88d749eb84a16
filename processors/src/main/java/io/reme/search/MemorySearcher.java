package io.reme.search;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.QueryBuilder;

/**
 * The read side of a {@link MemoryIndex}: the searchers over its writer's documents, and every query
 * run against them. Each read acquires the searcher of the last {@link #refresh()} and releases it when
 * done, so reads run concurrently with each other, with writes and with a refresh. Thread-safe.
 */
final class MemorySearcher implements Closeable {
    private final SearcherManager searchers;
    private final QueryBuilder analysis;
    private final VectorDimensions dimensions;

    /** Searchers over the writer's documents (its uncommitted writes included), scoring with {@code similarity}. */
    MemorySearcher(IndexWriter writer, Analyzer analyzer, Similarity similarity) throws IOException {
        this.searchers = new SearcherManager(writer, true, false, new SearcherFactory() {
            @Override
            public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setSimilarity(similarity);
                return searcher;
            }
        });
        this.analysis = new QueryBuilder(analyzer);
        this.dimensions = read(searcher -> VectorDimensions.of(searcher.getIndexReader()));
    }

    /** The dimensions of the index's vector fields, as indexed when opened and fixed by writes since. */
    VectorDimensions dimensions() {
        return dimensions;
    }

    /** Makes every write so far visible to reads; blocks until it is. */
    void refresh() throws IOException {
        searchers.maybeRefreshBlocking();
    }

    /** The hybrid search: the fused top hits, or with {@code allCandidates} every candidate. */
    SearchResult search(SearchQuery q, boolean allCandidates) throws IOException {
        // The timings' total counts from here, as the caller waits from here.
        long start = System.nanoTime();
        return read(searcher -> new HybridSearch(searcher, analysis, dimensions, q).run(allCandidates, start));
    }

    /** The tenant's record with this id, without its vector, or null. */
    MemoryRecord get(String tenant, String id) throws IOException {
        return read(searcher -> {
            TopDocs top = searcher.search(new TermQuery(new Term(MemorySchema.F_KEY, MemorySchema.key(tenant, id))), 1);
            if (top.scoreDocs.length == 0) {
                return null;
            }
            return new DocumentReader(searcher).records(new int[] {top.scoreDocs[0].doc})[0];
        });
    }

    /** The ids of every memory an erasure of {@code user} removes ({@link ExactQueries#erasure}). */
    List<String> idsOf(String tenant, String user) throws IOException {
        return read(searcher -> {
            Query query = ExactQueries.erasure(tenant, user);
            int count = searcher.count(query);
            if (count == 0) {
                return List.of();
            }
            TopDocs top = searcher.search(query, count);
            return List.of(new DocumentReader(searcher).ids(DocumentReader.docNumbers(top.scoreDocs)));
        });
    }

    /** One page of the tenant's records (without vectors) in the query's order. */
    List<MemoryRecord> list(MemoryListQuery q) throws IOException {
        return read(searcher -> {
            TopDocs top = searcher.search(ExactQueries.page(q), q.limit(), ExactQueries.order(q));
            return List.of(new DocumentReader(searcher).records(DocumentReader.docNumbers(top.scoreDocs)));
        });
    }

    /** Number of segments searches walk: each one is a kNN graph of its own. */
    int segmentCount() throws IOException {
        return read(searcher -> searcher.getIndexReader().leaves().size());
    }

    /** Number of records. */
    int count() throws IOException {
        return read(searcher -> searcher.getIndexReader().numDocs());
    }

    /** Number of the tenant's records. */
    int count(String tenant) throws IOException {
        return read(searcher -> searcher.count(new TermQuery(new Term(MemorySchema.F_TENANT, tenant))));
    }

    @Override
    public void close() throws IOException {
        searchers.close();
    }

    /** What one read makes of the searcher of the last refresh. */
    @FunctionalInterface
    private interface Read<T> {
        T apply(IndexSearcher searcher) throws IOException;
    }

    private <T> T read(Read<T> read) throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            return read.apply(searcher);
        } finally {
            searchers.release(searcher);
        }
    }
}
