package io.reme.indexstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.diary.EditSignature;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureReport;
import io.reme.erasure.ErasureStores;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.search.Hit;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import io.reme.session.SessionSettings;
import io.reme.topic.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory index store as wired: the memories topic in, searches through its interactive query. */
class MemoryIndexTopologyTest {
    private static final Topics TOPICS = IndexTopologyDriver.TOPICS;
    private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private static final RequestSecret SECRET = IndexTopologyDriver.SECRET;

    private TestInputTopic<String, byte[]> memories;
    private TestOutputTopic<String, byte[]> written;

    @BeforeEach
    void start() {
        driver = newDriver();
    }

    private TopologyTestDriver newDriver() {
        TopologyTestDriver created = IndexTopologyDriver.open(stateDir, "index-test");
        memories = created.createInputTopic(TOPICS.memories(), new StringSerializer(), new ByteArraySerializer());
        written = created.createOutputTopic(TOPICS.memories(), new StringDeserializer(), new ByteArrayDeserializer());
        return created;
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private static MemoryRecord memory(String tenant, String id, String text) {
        return new MemoryRecord(
                id,
                new MemoryRecord.Owner(tenant, "alice", null),
                MemoryType.PERSONAL,
                text,
                new MemoryRecord.Times(T0, T0, T0),
                Map.of(),
                null,
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.of("test-model", new float[] {1f, (float) id.hashCode() % 7, 0.5f}),
                List.of());
    }

    private void put(MemoryRecord record) throws Exception {
        memories.pipeInput(record.tenant() + "/" + record.id(), Json.MAPPER.writeValueAsBytes(record));
    }

    private List<String> search(String tenant, String text) {
        MemoryIndexStore store = (MemoryIndexStore) driver.getStateStore(MemoryIndexUpdater.STORE);
        QueryResult<SearchResult> result = store.query(
                new MemorySearch(SearchQuery.text(tenant, text, 10)),
                PositionBound.unbounded(),
                new QueryConfig(false));
        assertTrue(result.isSuccess(), String.valueOf(result));
        return result.getResult().hits().stream().map(Hit::id).toList();
    }

    @Test
    void aMemoryOverTheInputLimitIsSkippedAndTheNextOneIndexed() throws Exception {
        put(memory(
                "acme",
                "big",
                "trains " + "x".repeat(SessionSettings.defaults().input().maxMessageBytes())));
        put(memory("acme", "m1", "Alice prefers trains over buses"));
        assertEquals(List.of("m1"), search("acme", "trains"));
    }

    @Test
    void upsertsDeletesAndKeepsTenantsApart() throws Exception {
        put(memory("acme", "m1", "Alice prefers trains over buses"));
        put(memory("acme", "m2", "The orders service deploys on Fridays"));
        put(memory("globex", "m1", "Globex prefers buses"));
        assertEquals(List.of("m1"), search("acme", "trains"));
        assertEquals(List.of("m1"), search("globex", "buses"), "the same id in another tenant is its own record");
        assertEquals(List.of(), search("globex", "trains"));

        put(memory("acme", "m1", "Alice prefers planes now"));
        assertEquals(List.of(), search("acme", "trains"), "an upsert replaces the old text");
        assertEquals(List.of("m1"), search("acme", "planes"));

        memories.pipeInput("acme/m2", (byte[]) null);
        assertEquals(List.of(), search("acme", "deploys"), "a tombstone deletes");
        assertEquals(List.of("m1"), search("globex", "buses"), "and only the tenant's record");
    }

    private void mark(Erasure erasure, RequestSecret signer) {
        byte[] key = erasure.memoriesKey().getBytes(StandardCharsets.UTF_8);
        byte[] value = erasure.toJson();
        RecordHeaders headers = new RecordHeaders();
        headers.add(Erasure.HEADER, erasure.erasureId().getBytes(StandardCharsets.UTF_8));
        headers.add(EditSignature.header(signer, key, value));
        memories.pipeInput(new TestRecord<>(erasure.memoriesKey(), value, headers, T0));
    }

    /**
     * What the index wrote back to the topic since the last call, applied as the topic would (tombstones,
     * then one expunge request per marker); the tombstones' keys.
     */
    private List<String> tombstones() {
        List<TestRecord<String, byte[]>> out = written.readRecordsToList();
        List<String> keys = new ArrayList<>();
        for (TestRecord<String, byte[]> record : out) {
            memories.pipeInput(new TestRecord<>(record.key(), record.value(), record.headers(), T0));
            if (!MemoryErasure.isExpunge(record.headers())) {
                assertNull(record.value(), "an erasure writes tombstones only");
                keys.add(record.key());
            }
        }
        return keys.stream().sorted().toList();
    }

    /** Whether any file of the index holds {@code word}, as bytes: deleted documents stay until a merge. */
    private boolean onDisk(String word) throws IOException {
        byte[] needle = word.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(stateDir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
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
    void aSignedErasureMarkerTombstonesTheUsersMemoriesAndThoseAboutThemAndReportsTheCount() throws Exception {
        put(memory("acme", "a1", "Alice prefers trains over buses"));
        put(memory("acme", "a2", "Alice drinks tea from Quixotrundle"));
        MemoryRecord bobs = memory("acme", "b1", "Bob likes trains too");
        put(new MemoryRecord(
                "b1",
                new MemoryRecord.Owner("acme", "bob", null),
                MemoryType.PERSONAL,
                bobs.text(),
                new MemoryRecord.Times(T0, T0, T0),
                Map.of(),
                null,
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.of("test-model", bobs.vector()),
                List.of()));
        MemoryRecord aboutAlice = new MemoryRecord(
                "b2",
                new MemoryRecord.Owner("acme", "bob", null),
                MemoryType.PERSONAL,
                "Bob says Alice's trains are late",
                new MemoryRecord.Times(T0, T0, T0),
                Map.of(),
                "alice",
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.of("test-model", bobs.vector()),
                List.of());
        put(aboutAlice);
        put(memory("globex", "a1", "Globex Alice prefers trains"));
        Erasure alice = Erasure.ofUser("e1", "acme", "alice", T0, 0);

        mark(alice, RequestSecret.of("another-deployment-0123456789abcdef"));
        assertEquals(List.of(), tombstones(), "an unsigned marker erases nothing");

        MemoryIndexStore store = (MemoryIndexStore) driver.getStateStore(MemoryIndexUpdater.STORE);
        store.commitNow();
        assertTrue(onDisk("Quixotrundle"), "committed, the text is in the index's files");
        mark(alice, SECRET);
        assertEquals(List.of("acme/a1", "acme/a2", "acme/b2"), tombstones());
        assertFalse(onDisk("Quixotrundle"), "the erasure merged the deleted memories out of every file");
        assertEquals(List.of("b1"), search("acme", "trains"));
        assertEquals(List.of("a1"), search("globex", "trains"), "another tenant's alice is another person");
        KeyValueStore<String, ErasureReport> reports = driver.getKeyValueStore(ErasureStores.MEMORIES);
        ErasureReport report = reports.get("acme/alice");
        assertEquals("e1", report.erasureId());
        assertEquals(3, report.memories());
        assertTrue(report.expunged(), "the report says the files no longer hold them");

        // Alice's memories written after the erasure are not erased by the same request produced again.
        put(memory("acme", "a3", "Alice now prefers bikes over trains"));
        mark(alice, SECRET);
        assertEquals(List.of(), tombstones(), "a replayed erasure request erases nothing");
        assertEquals(
                List.of("a3", "b1"), search("acme", "trains").stream().sorted().toList());
        assertEquals("e1", reports.get("acme/alice").erasureId());
        mark(Erasure.ofTenant("e2", "acme", T0, 0), SECRET);
        assertEquals(List.of("acme/a3", "acme/b1"), tombstones());
        assertEquals(2, reports.get("acme/*").memories());
        assertEquals(List.of("a1"), search("globex", "trains"));
    }

    @Test
    void aRecordWhoseKeyNamesAnotherTenantIsNotIndexed() throws Exception {
        MemoryRecord forged = memory("globex", "m9", "secret globex roadmap");
        memories.pipeInput("acme/m9", Json.MAPPER.writeValueAsBytes(forged));
        memories.pipeInput("acme/m10", "{not json".getBytes(StandardCharsets.UTF_8));
        put(memory("acme", "m11", "roadmap for acme"));
        assertEquals(List.of("m11"), search("acme", "roadmap"));
        assertEquals(List.of(), search("globex", "roadmap"));
    }

    @Test
    void aCandidatesQueryAnswersEveryCandidateWithRawScoresIgnoringKAndMinScore() throws Exception {
        for (int i = 0; i < 15; i++) {
            put(memory("acme", "m" + i, "state store number " + i));
        }
        put(memory("globex", "g1", "state store of another tenant"));
        MemoryIndexStore store = (MemoryIndexStore) driver.getStateStore(MemoryIndexUpdater.STORE);
        SearchQuery query = SearchQuery.text("acme", "state store", 3).withMinScore(0.99);

        QueryResult<SearchResult> top =
                store.query(new MemorySearch(query), PositionBound.unbounded(), new QueryConfig(false));
        QueryResult<SearchResult> all =
                store.query(new MemorySearch(query, true), PositionBound.unbounded(), new QueryConfig(false));

        assertTrue(top.getResult().hits().size() <= 3);
        assertEquals(15, all.getResult().hits().size());
        assertTrue(all.getResult().hits().stream()
                .allMatch(h -> "acme".equals(h.memory().tenant()) && h.scores().textScore() != null));
    }

    @Test
    void replayingTheSameRecordsChangesNothing() throws Exception {
        List<MemoryRecord> records = List.of(
                memory("acme", "a", "kafka streams state stores"),
                memory("acme", "b", "lucene state store for search"),
                memory("acme", "c", "rocksdb state"));
        for (MemoryRecord record : records) {
            put(record);
        }
        List<String> first = search("acme", "state store");
        for (MemoryRecord record : records) {
            put(record);
        }
        assertEquals(first, search("acme", "state store"));
        assertEquals(3, first.size());
    }
}
