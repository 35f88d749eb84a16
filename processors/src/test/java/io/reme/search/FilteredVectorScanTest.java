package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FilteredVectorScanTest {
    private static final String FIELD = "v";
    private static final int DIMENSIONS = 16;

    private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
    /** Every document's user and vector (null: none), by id; deleted ones are marked. */
    private final List<Stored> stored = new ArrayList<>();

    private record Stored(String id, String user, float[] vector, boolean deleted) {}

    @BeforeEach
    void index() throws IOException {
        Random random = new Random(11);
        // Several segments (no merges), one of them without the vector field at all, some documents
        // without a vector, and deletions: each must be handled as Lucene's own query handles it.
        try (IndexWriter writer =
                new IndexWriter(directory, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
            int id = 0;
            for (int segment = 0; segment < 5; segment++) {
                for (int i = 0; i < 120; i++, id++) {
                    String user = "u" + (id % 4);
                    float[] vector = segment == 2 || id % 17 == 0 ? null : unit(random);
                    Document doc = new Document();
                    doc.add(new StringField("id", "d" + id, Field.Store.YES));
                    doc.add(new StringField("user", user, Field.Store.NO));
                    if (vector != null) {
                        doc.add(new KnnFloatVectorField(FIELD, vector, VectorSimilarityFunction.DOT_PRODUCT));
                    }
                    writer.addDocument(doc);
                    stored.add(new Stored("d" + id, user, vector, false));
                }
                writer.commit();
            }
            for (int i = 0; i < stored.size(); i += 9) {
                writer.deleteDocuments(new Term("id", stored.get(i).id()));
                Stored was = stored.get(i);
                stored.set(i, new Stored(was.id(), was.user(), was.vector(), true));
            }
            writer.commit();
        }
    }

    @Test
    void theNearestOfTheFilterAreTheExactScansNearestAndLucenesOwn() throws IOException {
        Random random = new Random(5);
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            assertTrue(
                    reader.leaves().size() >= 5,
                    "several segments: " + reader.leaves().size());
            Query user = new TermQuery(new Term("user", "u1"));
            for (int round = 0; round < 20; round++) {
                float[] target = unit(random);
                TopDocs scan = FilteredVectorScan.nearest(
                        searcher, FilteredVectorScan.weigh(searcher, user), FIELD, target, 10);

                List<Stored> expected = stored.stream()
                        .filter(s -> s.user().equals("u1") && s.vector() != null && !s.deleted())
                        .sorted(Comparator.comparingDouble((Stored s) -> -score(target, s.vector())))
                        .limit(10)
                        .toList();
                assertEquals(ids(expected), ids(searcher, scan), "the exact nearest of u1's live vectors");
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(score(target, expected.get(i).vector()), scan.scoreDocs[i].score, 1e-6);
                }

                // Lucene's filtered query is exact too when each segment holds few of the filter's documents.
                TopDocs lucene = searcher.search(new KnnFloatVectorQuery(FIELD, target, 10, user), 10);
                assertEquals(ids(searcher, lucene), ids(searcher, scan));
                for (int i = 0; i < lucene.scoreDocs.length; i++) {
                    assertEquals(lucene.scoreDocs[i].score, scan.scoreDocs[i].score, 1e-6);
                }
            }
        }
    }

    @Test
    void fewerMatchesThanAskedForAreAllReturnedAndNoneInvented() throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            long live = stored.stream()
                    .filter(s -> s.user().equals("u2") && s.vector() != null && !s.deleted())
                    .count();
            TopDocs all = FilteredVectorScan.nearest(
                    searcher,
                    FilteredVectorScan.weigh(searcher, new TermQuery(new Term("user", "u2"))),
                    FIELD,
                    unit(new Random(3)),
                    1_000);
            assertEquals(live, all.scoreDocs.length);
            assertEquals(live, all.totalHits.value());
            for (int i = 1; i < all.scoreDocs.length; i++) {
                assertTrue(all.scoreDocs[i - 1].score >= all.scoreDocs[i].score, "best first");
            }
            TopDocs none = FilteredVectorScan.nearest(
                    searcher,
                    FilteredVectorScan.weigh(searcher, new TermQuery(new Term("user", "nobody"))),
                    FIELD,
                    unit(new Random(3)),
                    10);
            assertEquals(0, none.scoreDocs.length);
            TopDocs noField = FilteredVectorScan.nearest(
                    searcher,
                    FilteredVectorScan.weigh(searcher, new TermQuery(new Term("user", "u2"))),
                    "absent",
                    unit(new Random(3)),
                    10);
            assertEquals(0, noField.scoreDocs.length);
        }
    }

    private static float score(float[] target, float[] vector) {
        return VectorSimilarityFunction.DOT_PRODUCT.compare(target, vector);
    }

    private static List<String> ids(List<Stored> stored) {
        return stored.stream().map(Stored::id).toList();
    }

    private static List<String> ids(IndexSearcher searcher, TopDocs top) throws IOException {
        List<String> ids = new ArrayList<>();
        for (ScoreDoc doc : top.scoreDocs) {
            ids.add(searcher.storedFields().document(doc.doc).get("id"));
        }
        return ids;
    }

    private static float[] unit(Random random) {
        float[] v = new float[DIMENSIONS];
        double norm = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) random.nextGaussian();
            norm += v[i] * v[i];
        }
        for (int i = 0; i < v.length; i++) {
            v[i] /= (float) Math.sqrt(norm);
        }
        return v;
    }
}
