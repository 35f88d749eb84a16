package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes, filters, analysis, kNN and determinism of {@link MemoryIndex}, on in-memory indexes. */
class MemoryIndexTest {
    private static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");

    private final List<MemoryIndex> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws IOException {
        for (MemoryIndex index : open) {
            index.close();
        }
    }

    private MemoryIndex index(MemoryRecord... records) throws IOException {
        MemoryIndex index = MemoryIndex.inMemory();
        open.add(index);
        for (MemoryRecord r : records) {
            index.upsert(r);
        }
        index.refresh();
        return index;
    }

    private static MemoryRecord rec(String id, String tenant, String user, MemoryType type, String text, Instant time) {
        return MemoryRecord.of(id, tenant, user, "s1", type, text, time);
    }

    private static MemoryRecord rec(String id, String text) {
        return rec(id, "acme", "alice", MemoryType.PERSONAL, text, T0);
    }

    private static List<String> ids(SearchResult result) {
        return result.hits().stream().map(Hit::id).toList();
    }

    private static SearchResult text(MemoryIndex index, String text) throws IOException {
        return index.search(SearchQuery.text("acme", text, 10));
    }

    @Test
    void aUsersWordListIsTheTenantsKeptToTheUser() throws IOException {
        // Under a small filter the BM25 list is scored document by document along the filter; without one by
        // score bounds (MaxScore). Both must find the same memories with the same scores.
        String[] words = {"train", "bus", "tea", "coffee", "walk", "harbour", "ticket", "late", "early", "plane"};
        Random random = new Random(7);
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 6; w++) {
                text.append(words[random.nextInt(words.length)]).append(' ');
            }
            records.add(rec("m" + i, "acme", "u" + (i % 3), MemoryType.PERSONAL, text.toString(), T0));
        }
        MemoryIndex index = index(records.toArray(MemoryRecord[]::new));
        Comparator<Hit> byTextScore = Comparator.comparingDouble(
                        (Hit hit) -> -hit.scores().textScore())
                .thenComparing(Hit::id);
        SearchQuery query = SearchQuery.text("acme", "late train to the harbour with tea", 300);
        List<String> tenantsKeptToU1 = index.candidates(query).hits().stream()
                .filter(hit -> hit.memory().user().equals("u1"))
                .sorted(byTextScore)
                .map(hit -> hit.id() + "=" + hit.scores().textScore())
                .toList();
        List<String> u1s = index.candidates(query.withUsers(Set.of("u1"))).hits().stream()
                .sorted(byTextScore)
                .map(hit -> hit.id() + "=" + hit.scores().textScore())
                .toList();
        assertTrue(u1s.size() > 50, "most of u1's 100 memories share a word with the query: " + u1s.size());
        assertEquals(tenantsKeptToU1, u1s);
    }

    // ---- two granularities: a memory's text, and its text with context ----------------------------

    @Test
    void aCommitPointRecordsItsOffsetAndAnIndexCommittedWithoutOneIsNotKnown() throws IOException {
        ByteBuffersDirectory directory = new ByteBuffersDirectory();
        try (MemoryIndex fresh = MemoryIndex.open(directory)) {
            assertEquals(-1, fresh.committedOffset().orElseThrow(), "nothing committed: replay from the start");
            fresh.upsert(rec("a", "first"));
            fresh.commit();
            assertTrue(fresh.committedOffset().isEmpty(), "committed without an offset: content not known");
            fresh.upsert(rec("b", "second"));
            fresh.commit(41);
            assertEquals(41, fresh.committedOffset().orElseThrow());
            // Written after the commit point, never committed: gone when the index opens again.
            fresh.upsert(rec("c", "third"));
        }
        try (MemoryIndex reopened = MemoryIndex.open(directory)) {
            assertEquals(41, reopened.committedOffset().orElseThrow());
            reopened.refresh();
            assertEquals(2, reopened.count());
            assertNull(reopened.get("acme", "c"));
        }
    }

    @Test
    void aMemoryIsFoundThroughItsContextButTheOneThatSaysItRanksFirst() throws IOException {
        MemoryRecord said = rec("said", "bob: the tax return is due on friday");
        MemoryRecord beside = rec("beside", "alice: thanks, I will plan around it")
                .withContext("bob: the tax return is due on friday\nalice: ok");
        MemoryRecord other = rec("other", "alice: the weather was fine");
        MemoryIndex index = index(beside, said, other);

        // Words only in the context still find the memory...
        assertEquals(List.of("beside"), ids(text(index, "plan around")));
        SearchResult both = text(index, "tax return friday");
        assertEquals(List.of("said", "beside"), ids(both));
        // ...but the memory whose own text matches is first, and each hit carries both lists' scores.
        Hit first = both.hits().get(0);
        assertNotNull(first.scores().textScore());
        assertNotNull(first.scores().contextTextScore());
        Hit second = both.hits().get(1);
        assertNull(second.scores().textScore(), "only its context matches");
        assertNotNull(second.scores().contextTextScore());
        assertEquals(beside.context(), second.memory().context());
    }

    @Test
    void withoutAnyContextTheSearchIsTheTextAndVectorSearchAsBefore() throws IOException {
        MemoryIndex index = index(rec("m1", "alice likes green tea"), rec("m2", "alice drinks tea daily"));
        SearchResult result = text(index, "green tea");
        assertEquals(List.of("m1", "m2"), ids(result));
        assertTrue(result.hits().stream()
                .allMatch(
                        h -> h.scores().contextTextScore() == null && h.scores().contextVectorScore() == null));
    }

    @Test
    void contextVectorsStandInForTheTextVectorOfMemoriesWithoutContext() throws IOException {
        float[] query = {1, 0, 0};
        MemoryRecord plain = rec("plain", "no words in common").withVector(new float[] {0.9f, 0.1f, 0}, "m");
        MemoryRecord near = rec("near", "nothing either")
                .withContext("some context")
                .withVector(new float[] {0, 1, 0}, "m")
                .withContextVector(new float[] {1, 0, 0});
        MemoryIndex index = index(plain, near);
        SearchResult result = index.search(SearchQuery.vector("acme", query, 10));
        Hit nearHit = result.hits().stream()
                .filter(h -> h.id().equals("near"))
                .findFirst()
                .orElseThrow();
        Hit plainHit = result.hits().stream()
                .filter(h -> h.id().equals("plain"))
                .findFirst()
                .orElseThrow();
        assertEquals(1.0, nearHit.scores().contextVectorScore(), 1e-5);
        // The memory without context takes part in the context-vector list with its own vector.
        assertEquals(plainHit.scores().vectorScore(), plainHit.scores().contextVectorScore(), 1e-9);
    }

    @Test
    void aDateTheQueryNamesRanksTheMemorySaidThenFirst() throws IOException {
        MemoryRecord may = rec("may", "acme", "alice", MemoryType.PERSONAL, "alice went hiking", T0)
                .withConversationTime(Instant.parse("2023-05-08T10:00:00Z"));
        MemoryRecord june = rec("zjune", "acme", "alice", MemoryType.PERSONAL, "alice went hiking", T0)
                .withConversationTime(Instant.parse("2023-06-20T10:00:00Z"));
        MemoryIndex index = index(may, june);
        // Equal words: without the date the tie would go to "may" by id.
        assertEquals(List.of("zjune", "may"), ids(text(index, "when did alice go hiking in June")));
        assertEquals(List.of("may", "zjune"), ids(text(index, "what did alice do on May 8, 2023, hiking?")));
        // A date alone finds nothing: it only orders memories the words found.
        assertEquals(List.of(), ids(text(index, "June 2023")));
    }

    @Test
    void theReplyRanksAboveTheQuestionWhoseWordsTheSearchRepeats() throws IOException {
        MemoryRecord question = rec("question", "caroline: how did the kids handle the accident?");
        MemoryRecord answer = rec("answer", "melanie: the kids were scared, but they handled it well");
        MemoryIndex index = index(question, answer);

        // RRF: the question is only one rank ahead (with scores too it is far ahead in BM25 and stays first).
        SearchResult result = index.search(SearchQuery.text("acme", "how did the kids handle the accident", 10)
                .withFusion(FusionMode.RRF));

        assertEquals(List.of("answer", "question"), ids(result));
        // BM25 alone puts the question first: it shares one more word.
        assertTrue(result.hits().get(1).scores().textScore()
                > result.hits().get(0).scores().textScore());
    }

    // ---- writes ---------------------------------------------------------------------------------

    @Test
    void testsRunWithTheVectorModule() {
        // The build adds it (surefire's argLine) as the README's java command does, so tests use Lucene's SIMD code.
        assertTrue(MemoryIndex.vectorModuleEnabled());
    }

    @Test
    void upsertReplacesByIdAndDeleteRemoves() throws IOException {
        MemoryIndex index = index(rec("m1", "alice likes green tea"), rec("m2", "alice owns a bicycle"));
        assertEquals(2, index.count());
        assertEquals(List.of("m1"), ids(text(index, "tea")));

        index.upsert(rec("m1", "alice switched to black coffee"));
        assertEquals(List.of("m1"), ids(text(index, "tea")), "not visible before refresh");
        index.refresh();
        assertEquals(2, index.count());
        assertEquals(List.of(), ids(text(index, "tea")));
        assertEquals(List.of("m1"), ids(text(index, "coffee")));
        assertEquals(
                "alice switched to black coffee",
                text(index, "coffee").hits().get(0).memory().text());

        index.delete("acme", "m2");
        index.delete("acme", "never-there");
        index.refresh();
        assertEquals(1, index.count());
        assertEquals(List.of(), ids(text(index, "bicycle")));
    }

    @Test
    void replayingTheSameRecordsChangesNothing() throws IOException {
        List<MemoryRecord> records = corpus(60, 11);
        MemoryIndex index = index(records.toArray(MemoryRecord[]::new));
        List<SearchResult> before = probe(index);
        int count = index.count();

        for (int round = 0; round < 2; round++) {
            for (MemoryRecord r : records) {
                index.upsert(r);
            }
            index.refresh();
            assertEquals(count, index.count());
            assertEquals(hitsOf(before), hitsOf(probe(index)));
        }
    }

    @Test
    void rebuildingFromTheSameRecordsGivesIdenticalResults() throws IOException {
        List<MemoryRecord> records = corpus(200, 5);
        MemoryIndex first = index(records.toArray(MemoryRecord[]::new));
        MemoryIndex second = index(records.toArray(MemoryRecord[]::new));
        List<SearchResult> a = probe(first);
        List<SearchResult> b = probe(second);
        assertEquals(hitsOf(a), hitsOf(b));
        assertTrue(a.stream().allMatch(r -> !r.hits().isEmpty()), "probes must hit something");
    }

    @Test
    void committedIndexSurvivesReopen(@TempDir Path dir) throws IOException {
        try (MemoryIndex index = MemoryIndex.open(dir)) {
            index.upsert(rec("m1", "the deploy pipeline broke on friday").withVector(new float[] {1, 0, 0}, "m"));
            index.upsert(rec("m2", "lunch is at noon"));
            index.commit();
        }
        try (MemoryIndex index = MemoryIndex.open(dir)) {
            assertEquals(2, index.count());
            assertEquals(3, index.vectorDimension("m"));
            assertEquals(0, index.vectorDimension("other"));
            assertEquals(List.of("m1"), ids(index.search(SearchQuery.text("acme", "pipeline", 5))));
            assertEquals(List.of("m1"), ids(index.search(SearchQuery.vector("acme", new float[] {1, 0.1f, 0}, 5))));
        }
    }

    @Test
    void expungingDeletesLeavesNoDeletedTextInAnyFile(@TempDir Path dir) throws IOException {
        try (MemoryIndex index = MemoryIndex.open(dir)) {
            index.upsert(rec("m1", "Alice books Quixotrundle window seats"));
            // Enough others that deleting one is no reason for Lucene's own merges to rewrite the segment.
            for (int i = 2; i < 200; i++) {
                index.upsert(rec("m" + i, "lunch number " + i + " is at noon"));
            }
            index.commit(1);
            index.refresh();
            assertTrue(onDisk(dir, "Quixotrundle"), "committed, the text is in a segment file");
            index.delete("acme", "m1");
            index.commit(2);
            index.refresh();
            assertTrue(onDisk(dir, "Quixotrundle"), "a deleted document stays in its segment's files");

            assertTrue(index.expungeDeletes(Duration.ofSeconds(10)));
            index.commit(3);
            index.refresh();
            index.deleteUnusedFiles();
            assertFalse(onDisk(dir, "Quixotrundle"), "merged away, and the old segment's files deleted");
            assertEquals(
                    List.of(),
                    ids(index.search(SearchQuery.text("acme", "lunch noon", 5))).stream()
                            .filter("m1"::equals)
                            .toList());
            assertEquals(198, index.count());
        }
    }

    private static boolean onDisk(Path dir, String word) throws IOException {
        byte[] needle = word.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                byte[] bytes = Files.readAllBytes(file);
                for (int i = 0; i + needle.length <= bytes.length; i++) {
                    if (Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Test
    void documentsWrittenBeforeTheDocValuesRecordAreReadFromStoredFields() throws IOException {
        List<MemoryRecord> records = corpus(200, 9);
        MemoryIndex current = index(records.toArray(MemoryRecord[]::new));
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        VectorDimensions dimensions = new VectorDimensions();
        try (IndexWriter legacy = new IndexWriter(dir, new IndexWriterConfig(MemorySchema.newAnalyzer()))) {
            for (int i = 0; i < records.size() / 2; i++) {
                legacy.addDocument(withStoredRecord(MemorySchema.toDocument(records.get(i), dimensions)));
                if (i % 25 == 24) {
                    legacy.commit();
                }
            }
        }
        try (MemoryIndex mixed = MemoryIndex.open(dir)) {
            for (MemoryRecord r : records.subList(records.size() / 2, records.size())) {
                mixed.upsert(r);
            }
            mixed.refresh();
            assertTrue(mixed.segmentCount() > 1, "old and new documents in separate segments");
            assertEquals(hitsOf(probe(current)), hitsOf(probe(mixed)));
            MemoryRecord old = records.get(0);
            assertEquals(current.get(old.tenant(), old.id()), mixed.get(old.tenant(), old.id()));
            MemoryListQuery all =
                    new MemoryListQuery("acme", null, null, null, null, null, null, null, false, 200, null);
            assertEquals(current.list(all), mixed.list(all));

            mixed.upsert(rec(old.id(), old.tenant(), old.user(), old.type(), "rewritten about lanterns", T0));
            mixed.refresh();
            assertEquals(
                    "rewritten about lanterns",
                    mixed.get(old.tenant(), old.id()).text());
            assertEquals(List.of(old.id()), ids(mixed.search(SearchQuery.text(old.tenant(), "lanterns", 5))));
        }
    }

    /** The document as versions before the binary doc values wrote it: the record in a stored field, no id bytes. */
    private static Document withStoredRecord(Document current) {
        BytesRef record = current.getBinaryValue(MemorySchema.F_SOURCE_BYTES);
        current.removeField(MemorySchema.F_SOURCE_BYTES);
        current.removeField(MemorySchema.F_ID_BYTES);
        current.add(new StoredField(MemorySchema.F_SOURCE, record));
        return current;
    }

    @Test
    void aLargeRecordRoundTrips() throws IOException {
        String text = "lantern ".repeat(200_000);
        MemoryIndex index = index(rec("big", text));
        assertEquals(text, index.get("acme", "big").text());
        assertEquals(text, text(index, "lantern").hits().get(0).memory().text());
    }

    // ---- filters --------------------------------------------------------------------------------

    @Test
    void tenantsNeverSeeEachOther() throws IOException {
        float[] v = {0.2f, 0.9f, 0.1f};
        MemoryIndex index = index(
                rec("a1", "acme", "u1", MemoryType.PERSONAL, "the launch code is blue", T0)
                        .withVector(v, "m"),
                rec("b1", "bolt", "u1", MemoryType.PERSONAL, "the launch code is blue", T0)
                        .withVector(v, "m"));
        for (String tenant : List.of("acme", "bolt")) {
            String expected = tenant.equals("acme") ? "a1" : "b1";
            SearchQuery q = SearchQuery.text(tenant, "launch code blue", 10);
            assertEquals(List.of(expected), ids(index.search(q)));
            assertEquals(List.of(expected), ids(index.search(SearchQuery.vector(tenant, v, 10))));
            assertEquals(List.of(expected), ids(index.search(q.withVector(v).withFusion(FusionMode.RRF))));
            assertEquals(tenant, index.search(q).hits().get(0).memory().tenant());
        }
        assertEquals(List.of(), ids(index.search(SearchQuery.text("other", "launch code blue", 10))));
        assertThrows(IllegalArgumentException.class, () -> SearchQuery.text(null, "launch", 10));
        assertThrows(IllegalArgumentException.class, () -> SearchQuery.text("", "launch", 10));
    }

    @Test
    void anIndexOfOneTenantAnswersWithoutAFilterAndStillWallsOffOthers() throws IOException {
        float[] v = {0.2f, 0.9f, 0.1f};
        MemoryIndex index = index(
                rec("a1", "acme", "u1", MemoryType.PERSONAL, "the launch code is blue", T0)
                        .withVector(v, "m"),
                rec("a2", "acme", "u1", MemoryType.PERSONAL, "the launch code was red", T0)
                        .withVector(v, "m"));
        SearchQuery q = SearchQuery.text("acme", "launch code", 10).withVector(v);
        assertEquals(Set.of("a1", "a2"), Set.copyOf(ids(index.search(q))));
        // Once another tenant's memory arrives (and an update may leave a deleted copy of a1 behind),
        // the tenant filter is needed again.
        index.upsert(rec("a1", "acme", "u1", MemoryType.PERSONAL, "the launch code is green", T0)
                .withVector(v, "m"));
        index.upsert(rec("b1", "bolt", "u1", MemoryType.PERSONAL, "the launch code is blue", T0)
                .withVector(v, "m"));
        index.refresh();
        assertEquals(Set.of("a1", "a2"), Set.copyOf(ids(index.search(q))));
        assertEquals(Set.of("a1", "a2"), Set.copyOf(ids(index.search(SearchQuery.vector("acme", v, 10)))));
        assertEquals(
                List.of("b1"),
                ids(index.search(SearchQuery.text("bolt", "launch code", 10).withVector(v))));
    }

    @Test
    void typeUserAndSessionFilters() throws IOException {
        MemoryIndex index = index(
                rec("p", "acme", "alice", MemoryType.PERSONAL, "kafka broker notes", T0),
                rec("t", "acme", "alice", MemoryType.TOOL, "kafka broker notes", T0),
                rec("d", "acme", "bob", MemoryType.DIARY_CHUNK, "kafka broker notes", T0),
                MemoryRecord.of("x", "acme", null, null, MemoryType.PROCEDURAL, "kafka broker notes", T0));
        SearchQuery q = SearchQuery.text("acme", "kafka", 10);
        assertEquals(Set.of("p", "t", "d", "x"), Set.copyOf(ids(index.search(q))));
        assertEquals(List.of("t"), ids(index.search(q.withTypes(Set.of(MemoryType.TOOL)))));
        assertEquals(
                Set.of("t", "d"),
                Set.copyOf(ids(index.search(q.withTypes(Set.of(MemoryType.TOOL, MemoryType.DIARY_CHUNK))))));
        assertEquals(Set.of("p", "t"), Set.copyOf(ids(index.search(q.withUsers(Set.of("alice"))))));
        assertEquals(List.of("d"), ids(index.search(q.withUsers(Set.of("bob", "carol")))));
        assertEquals(
                List.of("p"), ids(index.search(q.withUsers(Set.of("alice")).withTypes(Set.of(MemoryType.PERSONAL)))));
        assertEquals(Set.of("p", "t", "d"), Set.copyOf(ids(index.search(q.withSessions(Set.of("s1"))))));
    }

    @Test
    void timeRangeIsFromInclusiveToExclusiveOnConversationTimeElseCreation() throws IOException {
        Instant day1 = T0;
        Instant day2 = T0.plusSeconds(86_400);
        Instant day3 = T0.plusSeconds(2 * 86_400);
        MemoryIndex index = index(
                rec("d1", "acme", "u", MemoryType.PERSONAL, "went hiking", day1),
                rec("d2", "acme", "u", MemoryType.PERSONAL, "went hiking", day2),
                // written on day 3 about something that happened on day 1
                rec("late", "acme", "u", MemoryType.PERSONAL, "went hiking", day3)
                        .withConversationTime(day1),
                MemoryRecord.of("none", "acme", "u", null, MemoryType.PERSONAL, "went hiking", null));
        SearchQuery q = SearchQuery.text("acme", "hiking", 10);
        assertEquals(4, index.search(q).hits().size());
        assertEquals(Set.of("d1", "late"), Set.copyOf(ids(index.search(q.withTimeRange(day1, day2)))));
        assertEquals(List.of("d2"), ids(index.search(q.withTimeRange(day2, day3))));
        assertEquals(List.of("d2"), ids(index.search(q.withTimeRange(day2, null))));
        assertEquals(Set.of("d1", "late"), Set.copyOf(ids(index.search(q.withTimeRange(null, day2)))));
        assertThrows(IllegalArgumentException.class, () -> q.withTimeRange(day2, day1));
    }

    // ---- text analysis --------------------------------------------------------------------------

    @Test
    void englishStemmingMatchesOtherWordForms() throws IOException {
        MemoryIndex index =
                index(rec("m1", "We deployed the payment service to production"), rec("m2", "The cat sat on the mat"));
        assertEquals(List.of("m1"), ids(text(index, "deploying")));
        assertEquals(List.of("m1"), ids(text(index, "services deployment")));
        assertEquals(List.of(), ids(text(index, "the on")), "stop words alone match nothing");
        SearchResult r = text(index, "deploying");
        assertNotNull(r.hits().get(0).scores().textScore());
        assertNull(r.hits().get(0).scores().vectorScore());
        assertEquals(1.0, r.hits().get(0).score(), 1e-9);
    }

    @Test
    void cjkTextIsFoundByATwoCharacterQuery() throws IOException {
        MemoryIndex index = index(
                rec("beijing", "我们明天去北京开会"),
                rec("north", "北方的天气很冷"),
                rec("tokyo", "東京タワーに行きました"),
                rec("english", "meeting in the capital tomorrow"));
        List<String> hits = ids(text(index, "北京"));
        assertEquals("beijing", hits.get(0));
        assertFalse(hits.contains("english"));
        if (hits.contains("north")) { // shares one character: ranks below the bigram match
            SearchResult r = text(index, "北京");
            assertTrue(r.hits().get(0).score() > r.hits().get(1).score());
        }
        assertEquals("tokyo", ids(text(index, "東京")).get(0));
        assertEquals(List.of("beijing"), ids(text(index, "开会")));
    }

    // ---- vectors --------------------------------------------------------------------------------

    @Test
    void knnFindsTheNearestVectorWithinTheFilter() throws IOException {
        MemoryIndex index = index(
                rec("x", "acme", "u", MemoryType.PERSONAL, "one", T0).withVector(new float[] {1, 0, 0, 0}, "m"),
                rec("y", "acme", "u", MemoryType.PERSONAL, "two", T0).withVector(new float[] {0, 1, 0, 0}, "m"),
                rec("xy", "acme", "u", MemoryType.TOOL, "three", T0).withVector(new float[] {5, 4, 0, 0}, "m"),
                rec("z", "acme", "u", MemoryType.PERSONAL, "four", T0).withVector(new float[] {0, 0, 0, 3}, "m"),
                rec("plain", "acme", "u", MemoryType.PERSONAL, "no vector", T0));
        SearchResult r = index.search(SearchQuery.vector("acme", new float[] {0.9f, 0.8f, 0, 0}, 2));
        assertEquals(List.of("xy", "x"), ids(r));
        // vector scores are cosine similarities (vectors are normalised, so length does not matter)
        double expected = (0.9 * 5 + 0.8 * 4) / (Math.hypot(0.9, 0.8) * Math.hypot(5, 4));
        assertEquals(expected, r.hits().get(0).scores().vectorScore(), 1e-5);
        assertNull(r.hits().get(0).scores().textScore());

        SearchQuery personal =
                SearchQuery.vector("acme", new float[] {0.9f, 0.8f, 0, 0}, 10).withTypes(Set.of(MemoryType.PERSONAL));
        assertEquals(List.of("x", "y", "z"), ids(index.search(personal)));
        assertEquals(List.of("z"), ids(index.search(SearchQuery.vector("acme", new float[] {0, 0, 0, 1}, 1))));
    }

    @Test
    void aUsersNearestAreExactUnderASelectiveFilter() throws IOException {
        // One user of 40 holds a fortieth of the index: the kNN list is an exact scan of that user's vectors.
        Random random = new Random(13);
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 800; i++) {
            float[] v = new float[8];
            for (int d = 0; d < v.length; d++) {
                v[d] = (float) random.nextGaussian();
            }
            records.add(rec("m" + i, "acme", "u" + (i % 40), MemoryType.PERSONAL, "memory " + i, T0)
                    .withVector(v, "m"));
        }
        MemoryIndex index = index(records.toArray(MemoryRecord[]::new));
        for (int round = 0; round < 10; round++) {
            float[] query = new float[8];
            for (int d = 0; d < query.length; d++) {
                query[d] = (float) random.nextGaussian();
            }
            List<String> expected = records.stream()
                    .filter(r -> r.user().equals("u7"))
                    .sorted(Comparator.comparingDouble((MemoryRecord r) -> -cosine(query, r.vector())))
                    .limit(5)
                    .map(MemoryRecord::id)
                    .toList();
            SearchQuery oneUser = SearchQuery.vector("acme", query, 5).withUsers(Set.of("u7"));
            assertEquals(expected, ids(index.search(oneUser)));
        }
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return dot / Math.sqrt(na * nb);
    }

    @Test
    void aQueryVectorIsComparedOnlyWithVectorsOfItsModel() throws IOException {
        MemoryIndex index = index(
                rec("old-near", "acme", "u", MemoryType.PERSONAL, "one", T0).withVector(new float[] {1, 0, 0}, "old"),
                rec("new-far", "acme", "u", MemoryType.PERSONAL, "two", T0).withVector(new float[] {0, 1, 0}, "new"),
                rec("new-mid", "acme", "u", MemoryType.PERSONAL, "three", T0).withVector(new float[] {1, 1, 0}, "new"));
        float[] query = {1, 0.01f, 0};

        assertEquals(
                List.of("old-near", "new-mid", "new-far"), ids(index.search(SearchQuery.vector("acme", query, 3))));
        SearchQuery ofNew = SearchQuery.vector("acme", query, 3).withVector(query, "new");
        assertEquals(List.of("new-mid", "new-far"), ids(index.search(ofNew)));
        assertEquals(List.of("old-near"), ids(index.search(ofNew.withVector(query, "old"))));
        assertEquals(List.of(), ids(index.search(ofNew.withVector(query, "other"))));

        // Re-embedded by the new model, the memory is its neighbour again.
        index.upsert(
                rec("old-near", "acme", "u", MemoryType.PERSONAL, "one", T0).withVector(new float[] {1, 0, 0}, "new"));
        index.refresh();
        assertEquals(List.of("old-near", "new-mid", "new-far"), ids(index.search(ofNew)));
    }

    @Test
    void eachModelsVectorsHaveAGraphAndADimensionOfTheirOwn() throws IOException {
        // An English and a Chinese model, as LanguageRoutedEmbeddingModel embeds memories: the same numbers mean
        // nothing across models, so the Chinese query must not find the English memory however close they are.
        MemoryIndex index = index(
                rec("en", "acme", "u", MemoryType.PERSONAL, "one", T0).withVector(new float[] {1, 0, 0}, "en"),
                rec("zh", "acme", "u", MemoryType.PERSONAL, "二", T0).withVector(new float[] {0, 1, 0, 0}, "zh"),
                rec("zh-ctx", "acme", "u", MemoryType.PERSONAL, "三", T0)
                        .withContext("上下文")
                        .withVector(new float[] {0, 0, 1, 0}, "zh")
                        .withContextVector(new float[] {1, 0, 0, 0}));
        assertEquals(3, index.vectorDimension("en"));
        assertEquals(4, index.vectorDimension("zh"));

        SearchResult zh = index.search(
                SearchQuery.vector("acme", new float[] {1, 0, 0, 0}, 5).withVector(new float[] {1, 0, 0, 0}, "zh"));
        // Its own vector is as far as the other's: first through its context vector.
        assertEquals(List.of("zh-ctx", "zh"), ids(zh));
        SearchResult en = index.search(
                SearchQuery.vector("acme", new float[] {1, 0, 0}, 5).withVector(new float[] {1, 0, 0}, "en"));
        assertEquals(List.of("en"), ids(en));
        // A model's vectors are checked against their own length only.
        assertThrows(
                IllegalArgumentException.class,
                () -> index.search(
                        SearchQuery.vector("acme", new float[] {1, 0, 0}, 5).withVector(new float[] {1, 0, 0}, "zh")));
        assertThrows(
                IllegalArgumentException.class,
                () -> index.upsert(rec("zh2", "x").withVector(new float[] {1, 0, 0}, "zh")));
        index.upsert(rec("en2", "x").withVector(new float[] {0, 1, 0}, "en"));
        // A query without a model is compared with the models of its length.
        index.refresh();
        assertEquals(List.of("en", "en2"), ids(index.search(SearchQuery.vector("acme", new float[] {1, 0.1f, 0}, 5))));
        assertThrows(
                IllegalArgumentException.class, () -> index.search(SearchQuery.vector("acme", new float[] {1, 0}, 5)));
        // A model the index has no vectors of yet: text search only, no error.
        assertEquals(
                List.of(),
                ids(index.search(
                        SearchQuery.vector("acme", new float[] {1, 0}, 5).withVector(new float[] {1, 0}, "new"))));
    }

    @Test
    void hybridPrefersWhatBothListsAgreeOn() throws IOException {
        MemoryIndex index = index(
                rec("both", "rust compiler errors").withVector(new float[] {1, 0.1f, 0}, "m"),
                rec("textonly", "rust compiler errors everywhere").withVector(new float[] {0, 0, 1}, "m"),
                rec("vectoronly", "gardening tips").withVector(new float[] {1, 0, 0}, "m"));
        for (FusionMode mode : FusionMode.values()) {
            SearchQuery q = SearchQuery.text("acme", "rust compiler", 3)
                    .withVector(new float[] {1, 0.05f, 0})
                    .withFusion(mode);
            SearchResult r = index.search(q);
            assertEquals("both", r.hits().get(0).id(), mode.name());
            assertNotNull(r.hits().get(0).scores().textScore());
            assertNotNull(r.hits().get(0).scores().vectorScore());
            assertEquals(Set.of("both", "textonly", "vectoronly"), Set.copyOf(ids(r)));
            assertTrue(r.timings().textCandidates() == 2 && r.timings().vectorCandidates() == 3, r.toString());
        }
    }

    @Test
    void minScoreAndKApplyAfterFusion() throws IOException {
        List<MemoryRecord> records = corpus(40, 3);
        MemoryIndex index = index(records.toArray(MemoryRecord[]::new));
        SearchQuery q = SearchQuery.text("acme", "blue river stone", 40);
        SearchResult all = index.search(q);
        assertTrue(all.hits().size() > 3);
        SearchResult strict = index.search(q.withMinScore(0.5));
        assertTrue(strict.hits().stream().allMatch(h -> h.score() >= 0.5));
        assertEquals(
                all.hits().stream().filter(h -> h.score() >= 0.5).map(Hit::id).toList(), ids(strict));
        assertEquals(ids(all).subList(0, 3), ids(index.search(q.withK(3))));
    }

    @Test
    void vectorDimensionsMustAgree() throws IOException {
        MemoryIndex index = index(rec("a", "x").withVector(new float[] {1, 2, 3}, "m"));
        assertThrows(
                IllegalArgumentException.class, () -> index.upsert(rec("b", "y").withVector(new float[] {1, 2}, "m")));
        assertThrows(
                IllegalArgumentException.class, () -> index.search(SearchQuery.vector("acme", new float[] {1, 2}, 3)));
        assertThrows(IllegalArgumentException.class, () -> rec("c", "z").withVector(new float[] {0, 0, 0}, "m"));
        assertThrows(IllegalArgumentException.class, () -> rec("c", "z").withVector(new float[] {1, Float.NaN}, "m"));
    }

    @Test
    void queriesNeedTextOrAVectorAndASaneK() {
        assertThrows(IllegalArgumentException.class, () -> SearchQuery.text("acme", "  ", 5));
        assertThrows(IllegalArgumentException.class, () -> SearchQuery.text("acme", "x", -1));
        assertThrows(IllegalArgumentException.class, () -> SearchQuery.text("acme", "x", SearchQuery.MAX_K + 1));
        assertThrows(
                IllegalArgumentException.class,
                () -> SearchQuery.text("acme", "x", 5).withMinScore(1.5));
        assertEquals(SearchQuery.DEFAULT_K, SearchQuery.text("acme", "x", 0).k());
        assertEquals(100, SearchQuery.text("acme", "x", 7).candidates());
        assertEquals(500, SearchQuery.text("acme", "x", 50).candidates());
        // A query read 50 deep from the candidates of 20: no more candidates than a search of 20 asks.
        assertEquals(200, SearchQuery.text("acme", "x", 50).withBreadth(20).candidates());
        assertEquals(50, SearchQuery.text("acme", "x", 50).withBreadth(20).k());
        assertEquals(500, SearchQuery.text("acme", "x", 50).withBreadth(80).candidates(), "never more than k's");
        assertEquals(1000, SearchQuery.text("acme", "x", 1000).withBreadth(20).candidates(), "never fewer than k");
        assertThrows(
                IllegalArgumentException.class,
                () -> SearchQuery.text("acme", "x", 5).withBreadth(-1));
    }

    @Test
    void recordsAndQueriesRoundTripThroughJson() throws IOException {
        MemoryRecord r = new MemoryRecord(
                "m1",
                new MemoryRecord.Owner("acme", "alice", "s1"),
                MemoryType.TOOL,
                "grep -r works",
                new MemoryRecord.Times(T0, T0.plusSeconds(5), T0.minusSeconds(60)),
                Map.of("b", "2", "a", "1"),
                null,
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.of("minilm", new float[] {0.5f, -1.25f}),
                List.of());
        String json = Json.MAPPER.writeValueAsString(r);
        assertTrue(json.contains("\"createdAt\":\"2024-03-01T10:00:00Z\""), json);
        assertTrue(json.contains("\"metadata\":{\"a\":\"1\",\"b\":\"2\"}"), json);
        assertEquals(r, Json.MAPPER.readValue(json, MemoryRecord.class));
        MemoryRecord bare = MemoryRecord.of("m2", "acme", null, null, MemoryType.PERSONAL, "x", null);
        assertFalse(Json.MAPPER.writeValueAsString(bare).contains("vector"));
        assertEquals(bare, Json.MAPPER.readValue(Json.MAPPER.writeValueAsString(bare), MemoryRecord.class));

        SearchQuery q = SearchQuery.text("acme", "tea", 5)
                .withVector(new float[] {1, 2})
                .withUsers(Set.of("alice"))
                .withTypes(Set.of(MemoryType.PERSONAL))
                .withFusion(FusionMode.RRF)
                .withMinScore(0.25);
        assertEquals(q, Json.MAPPER.readValue(Json.MAPPER.writeValueAsString(q), SearchQuery.class));
        assertFalse(Json.MAPPER.writeValueAsString(q).contains("breadth"), "left out when 0, as older instances wrote");
        SearchQuery deep = q.withK(50).withBreadth(20).withTargets(Set.of("bob"));
        assertEquals(20, deep.ranking().breadth(), "every wither keeps the breadth");
        assertEquals(deep, Json.MAPPER.readValue(Json.MAPPER.writeValueAsString(deep), SearchQuery.class));

        // Instances exchange it flat, field for field as the version before the query had parts wrote it.
        String before = "{\"tenant\":\"acme\",\"text\":\"tea\",\"vector\":[1.0,2.0],\"k\":50,"
                + "\"types\":[\"PERSONAL\"],\"users\":[\"alice\"],\"sessions\":[],\"minScore\":0.25,"
                + "\"fusion\":\"RRF\",\"targets\":[\"bob\"],\"breadth\":20}";
        assertEquals(deep, Json.MAPPER.readValue(before, SearchQuery.class));
        assertEquals(Json.MAPPER.readTree(before), Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(deep)));
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static final String[] WORDS = {
        "blue", "river", "stone", "kafka", "deploy", "tea", "garden", "paris", "meeting", "budget", "python", "guitar",
        "winter", "doctor", "train", "coffee"
    };

    /** Pseudo-random records with overlapping words, some with vectors, over two tenants. */
    @SuppressWarnings("EnumOrdinal") // the types taken in turn, whatever their order
    private static List<MemoryRecord> corpus(int n, long seed) {
        Random random = new Random(seed);
        List<MemoryRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 4 + random.nextInt(8); w++) {
                text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            MemoryRecord r = rec(
                    "r" + i,
                    i % 7 == 0 ? "bolt" : "acme",
                    "u" + (i % 3),
                    MemoryType.values()[i % MemoryType.values().length],
                    text.toString().trim(),
                    T0.plusSeconds(3600L * i));
            if (i % 2 == 0) {
                float[] v = new float[8];
                for (int d = 0; d < v.length; d++) {
                    v[d] = (float) random.nextGaussian();
                }
                r = r.withVector(v, "m");
            }
            out.add(r);
        }
        return out;
    }

    private static List<SearchResult> probe(MemoryIndex index) throws IOException {
        float[] v = {1, -0.5f, 0.2f, 0, 0.3f, 0.9f, -1, 0.1f};
        List<SearchResult> out = new ArrayList<>();
        for (String text : List.of("blue river", "kafka deploy tea", "garden", "doctor train coffee winter")) {
            SearchQuery q = SearchQuery.text("acme", text, 10);
            out.add(index.search(q));
            out.add(index.search(q.withVector(v)));
            out.add(index.search(q.withVector(v).withFusion(FusionMode.RRF).withUsers(Set.of("u1"))));
        }
        out.add(index.search(SearchQuery.vector("acme", v, 10)));
        return out;
    }

    /** Hits without timings, for comparing results. */
    private static List<List<Hit>> hitsOf(List<SearchResult> results) {
        return results.stream().map(SearchResult::hits).toList();
    }
}
