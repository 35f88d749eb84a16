package io.reme.search;

import io.reme.json.Json;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.util.BytesRef;

/**
 * Reads the ids and records of documents found by a search, from one searcher's segments.
 *
 * <p>Both are kept in binary doc values ({@link MemorySchema#F_ID_BYTES}, {@link MemorySchema#F_SOURCE_BYTES}),
 * uncompressed: a search reads the ids of its 200 candidates and the records of its hits, and from
 * the compressed structures Lucene uses otherwise (sorted doc values' terms dictionary, stored
 * fields) that took about a fifth of a search's CPU time at 10^5 memories; reading the same bytes
 * from binary doc values takes about a tenth as long, leaving mostly the JSON parsing
 * (docs/benchmarks.md). Documents indexed before those fields existed keep the
 * id in sorted doc values and the record in stored fields; they are read from there, document by
 * document, so an index written by an earlier version needs no rebuild.
 */
final class DocumentReader {
    private static final Set<String> SOURCE_ONLY = Set.of(MemorySchema.F_SOURCE);

    private final List<LeafReaderContext> leaves;
    private final IndexSearcher searcher;

    DocumentReader(IndexSearcher searcher) {
        this.searcher = searcher;
        this.leaves = searcher.getIndexReader().leaves();
    }

    /** The ids of the documents, in the order given. */
    String[] ids(int[] docs) throws IOException {
        String[] out = new String[docs.length];
        Cursor cursor = new Cursor(MemorySchema.F_ID_BYTES);
        for (int i : ascending(docs)) {
            int doc = docs[i];
            LeafReaderContext leaf = cursor.moveTo(doc);
            int local = doc - leaf.docBase;
            BytesRef bytes = cursor.bytes(local);
            if (bytes == null) {
                SortedDocValues sorted = cursor.sortedIds();
                if (sorted == null || !sorted.advanceExact(local)) {
                    throw new IllegalStateException("document " + doc + " has no id");
                }
                bytes = sorted.lookupOrd(sorted.ordValue());
            }
            out[i] = bytes.utf8ToString();
        }
        return out;
    }

    /** The records (without vectors) of the documents, in the order given. */
    MemoryRecord[] records(int[] docs) throws IOException {
        MemoryRecord[] out = new MemoryRecord[docs.length];
        Cursor cursor = new Cursor(MemorySchema.F_SOURCE_BYTES);
        StoredFields stored = null;
        for (int i : ascending(docs)) {
            int doc = docs[i];
            LeafReaderContext leaf = cursor.moveTo(doc);
            BytesRef bytes = cursor.bytes(doc - leaf.docBase);
            if (bytes == null) {
                if (stored == null) {
                    stored = searcher.storedFields();
                }
                bytes = stored.document(doc, SOURCE_ONLY).getBinaryValue(MemorySchema.F_SOURCE);
                if (bytes == null) {
                    throw new IllegalStateException("document " + doc + " has no record");
                }
            }
            out[i] = Json.MAPPER.readValue(bytes.bytes, bytes.offset, bytes.length, MemoryRecord.class);
        }
        return out;
    }

    /** The doc numbers of a search's hits, in their order. */
    static int[] docNumbers(ScoreDoc[] hits) {
        int[] numbers = new int[hits.length];
        for (int i = 0; i < hits.length; i++) {
            numbers[i] = hits[i].doc;
        }
        return numbers;
    }

    /** Positions of {@code docs} in ascending doc order: doc values iterators only move forward. */
    private static int[] ascending(int[] docs) {
        long[] keyed = new long[docs.length];
        for (int i = 0; i < docs.length; i++) {
            keyed[i] = (long) docs[i] << 32 | i;
        }
        Arrays.sort(keyed);
        int[] order = new int[docs.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = (int) keyed[i];
        }
        return order;
    }

    /**
     * Walks documents in ascending order: the segment of the current one and its doc values
     * iterators for one binary field, replaced when the segment changes.
     */
    private final class Cursor {
        private final String field;
        private LeafReaderContext leaf;
        private BinaryDocValues binary;
        private SortedDocValues sorted;
        private boolean sortedLoaded;
        private int lastDoc = -1;
        private BytesRef lastBytes;

        Cursor(String field) {
            this.field = field;
        }

        LeafReaderContext moveTo(int doc) throws IOException {
            if (leaf == null || doc >= leaf.docBase + leaf.reader().maxDoc()) {
                leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
                binary = leaf.reader().getBinaryDocValues(field);
                sorted = null;
                sortedLoaded = false;
                lastDoc = -1;
            }
            return leaf;
        }

        /** The current segment's value of the field for this document, or null when it has none. */
        BytesRef bytes(int local) throws IOException {
            if (local == lastDoc) {
                return lastBytes;
            }
            lastDoc = local;
            lastBytes = binary != null && binary.advanceExact(local) ? binary.binaryValue() : null;
            return lastBytes;
        }

        SortedDocValues sortedIds() throws IOException {
            if (!sortedLoaded) {
                sortedLoaded = true;
                sorted = leaf.reader().getSortedDocValues(MemorySchema.F_ID);
            }
            return sorted;
        }
    }
}
