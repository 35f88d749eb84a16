package io.reme.search;

import static io.reme.search.MemorySchema.F_ID;
import static io.reme.search.MemorySchema.F_META;
import static io.reme.search.MemorySchema.F_SESSION;
import static io.reme.search.MemorySchema.F_TARGET;
import static io.reme.search.MemorySchema.F_TENANT;
import static io.reme.search.MemorySchema.F_TIME;
import static io.reme.search.MemorySchema.F_TYPE;
import static io.reme.search.MemorySchema.F_USER;
import static io.reme.search.MemorySchema.META_SEPARATOR;

import java.io.IOException;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.util.BytesRef;

/**
 * The exact queries of {@link MemoryIndex}'s reads: a search's filter, a page of a list and its
 * order, and the memories an erasure removes. (The scored ones are {@link HybridSearch}'s.)
 */
final class ExactQueries {
    private ExactQueries() {}

    /**
     * A search's filter and a bound on what it matches. {@code query} is null when the filter matches every
     * document, which is common (a partition holding one tenant's memories and no other filter) and worth
     * knowing: a kNN search with a filter first collects the filter's documents into a bit set and a BM25
     * search intersects with it, both costs growing with the index, for nothing. {@code bound} is at least
     * as many documents as the filter matches, from the postings' sizes alone (deleted documents
     * included): the tenant's, or fewer when users, sessions or targets narrow it (a type or time filter
     * does not lower it).
     */
    record Filter(Query query, long bound) {}

    /**
     * The search's {@link Filter}. Deleted documents count as the tenant's only if they were, so the
     * shortcut of a null query never lets another tenant's memory through.
     */
    static Filter filter(SearchQuery q, IndexReader reader) throws IOException {
        long tenantDocs = reader.docFreq(new Term(F_TENANT, q.tenant()));
        SearchQuery.Filter scope = q.filter();
        boolean onlyTenant = scope.types().isEmpty()
                && scope.users().isEmpty()
                && scope.targets().isEmpty()
                && scope.sessions().isEmpty()
                && scope.from() == null
                && scope.to() == null;
        if (onlyTenant && reader.maxDoc() > 0 && tenantDocs == reader.maxDoc()) {
            return new Filter(null, tenantDocs);
        }
        BooleanQuery.Builder b = exactFilters(q.tenant(), scope.types(), scope.users(), scope.targets());
        if (!scope.sessions().isEmpty()) {
            b.add(termSet(F_SESSION, scope.sessions()), Occur.FILTER);
        }
        addRange(b, F_TIME, scope.from(), scope.to());
        long bound = Math.min(tenantDocs, postings(reader, F_USER, scope.users()));
        bound = Math.min(bound, postings(reader, F_SESSION, scope.sessions()));
        bound = Math.min(bound, postings(reader, F_TARGET, scope.targets()));
        return new Filter(b.build(), bound);
    }

    /** The documents holding any of {@code values} in {@code field}, counted once per value; no values: all. */
    private static long postings(IndexReader reader, String field, Set<String> values) throws IOException {
        if (values.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long sum = 0;
        for (String value : values) {
            sum += reader.docFreq(new Term(field, value));
        }
        return sum;
    }

    /** The records of one page of the list, unscored: {@link #order} sorts them. */
    static Query page(MemoryListQuery q) {
        String field = MemorySchema.sortField(q.sort());
        BooleanQuery.Builder b = exactFilters(q.tenant(), q.types(), q.users(), q.targets());
        for (Map.Entry<String, String> entry : q.metadata().entrySet()) {
            b.add(new TermQuery(new Term(F_META, entry.getKey() + META_SEPARATOR + entry.getValue())), Occur.FILTER);
        }
        addRange(b, field, q.from(), q.to());
        if (q.after() != null) {
            b.add(after(field, q.after(), q.descending()), Occur.FILTER);
        }
        return new ConstantScoreQuery(b.build());
    }

    /** The list's order: by its sort key, equal keys by id, both in its direction. */
    static Sort order(MemoryListQuery q) {
        return new Sort(
                new SortField(MemorySchema.sortField(q.sort()), SortField.Type.LONG, q.descending()),
                new SortField(F_ID, SortField.Type.STRING, q.descending()));
    }

    /**
     * Every memory an erasure of {@code user} removes: the user's own and the personal memories about
     * them; with {@code user} null, every memory of the tenant. Unscored.
     */
    static Query erasure(String tenant, String user) {
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
        return new ConstantScoreQuery(b.build());
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

    /** Filters on the time range [from, to), either end open when null; nothing when both are. */
    private static void addRange(BooleanQuery.Builder b, String field, Instant from, Instant to) {
        if (from != null || to != null) {
            long lo = from == null ? Long.MIN_VALUE : from.toEpochMilli();
            long hi = to == null ? Long.MAX_VALUE : to.toEpochMilli() - 1;
            b.add(LongPoint.newRangeQuery(field, lo, hi), Occur.FILTER);
        }
    }

    private static Query termSet(String field, Collection<String> values) {
        return new TermInSetQuery(
                field, values.stream().sorted().map(BytesRef::new).toList());
    }
}
