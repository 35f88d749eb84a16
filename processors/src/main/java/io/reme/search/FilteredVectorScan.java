package io.reme.search;

import java.io.IOException;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocAndFloatFeatureBuffer;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.HitQueue;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;

/**
 * The exact nearest vectors among a small filter's documents: every document the filter matches is
 * scored, segment by segment, in batches, and nothing else is read.
 *
 * <p>Lucene's filtered kNN query reaches the same exact answer when a segment holds few of the filter's
 * documents, but it finds them by testing every vector ordinal of the segment against the filter: a walk
 * over the whole index for each query (a third of a one-user search's time at 10^6 memories,
 * docs/benchmarks.md). Here the walk follows the filter's own postings instead. Scores are the field's
 * similarity, as the kNN query's are.
 */
final class FilteredVectorScan {
    private FilteredVectorScan() {}

    /** The filter ready to be walked, segment by segment: made once for all the scans of one search. */
    static Weight weigh(IndexSearcher searcher, Query filter) throws IOException {
        return searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
    }

    /**
     * The {@code n} documents of {@code filter} ({@link #weigh}) nearest to {@code target} in vector field
     * {@code field}, best first, equal scores in document order; documents without a vector in the field
     * are skipped.
     */
    static TopDocs nearest(IndexSearcher searcher, Weight filter, String field, float[] target, int n)
            throws IOException {
        HitQueue queue = new HitQueue(n, true);
        ScoreDoc top = queue.top();
        DocAndFloatFeatureBuffer batch = new DocAndFloatFeatureBuffer();
        long scored = 0;
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            FloatVectorValues vectors = leaf.reader().getFloatVectorValues(field);
            if (vectors == null) {
                continue;
            }
            Scorer matches = filter.scorer(leaf);
            if (matches == null) {
                continue;
            }
            VectorScorer.Bulk bulk = vectors.scorer(target).bulk(matches.iterator());
            while (true) {
                bulk.nextDocsAndScores(
                        DocIdSetIterator.NO_MORE_DOCS, leaf.reader().getLiveDocs(), batch);
                if (batch.size == 0) {
                    break;
                }
                scored += batch.size;
                for (int i = 0; i < batch.size; i++) {
                    // Strictly greater: of equal scores the earlier document stays, as in Lucene's collectors.
                    if (batch.features[i] > top.score) {
                        top.score = batch.features[i];
                        top.doc = leaf.docBase + batch.docs[i];
                        top = queue.updateTop();
                    }
                }
            }
        }
        // The queue starts full of sentinels that no real score replaced when fewer than n matched.
        while (queue.size() > 0 && queue.top().score == Float.NEGATIVE_INFINITY) {
            queue.pop();
        }
        ScoreDoc[] best = new ScoreDoc[queue.size()];
        for (int i = best.length - 1; i >= 0; i--) {
            best[i] = queue.pop();
        }
        return new TopDocs(new TotalHits(scored, TotalHits.Relation.EQUAL_TO), best);
    }
}
