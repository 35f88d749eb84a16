package io.reme.indexstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.json.Json;
import io.reme.search.Hit;
import io.reme.search.MemoryIndex;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.search.SearchQuery;
import io.reme.search.SearchQuery.ProfileVector;
import io.reme.search.SearchResult;
import io.reme.topic.Topics;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change of embedding model as the index sees it: memories that carry two models' vectors, and the switch record
 * after which its searches use the new model's, durably.
 */
class EmbeddingSwitchTest {
    private static final Topics TOPICS = IndexTopologyDriver.TOPICS;
    private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
    /** Under model a the query is nearest to m1, under model b to m2. */
    private static final float[] QUERY_A = {1, 0, 0};

    private static final float[] QUERY_B = {0, 0, 1};

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, byte[]> memories;

    private void open() {
        driver = IndexTopologyDriver.open(stateDir, "switch-test");
        memories = driver.createInputTopic(TOPICS.memories(), new StringSerializer(), new ByteArraySerializer());
    }

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    private static MemoryRecord memory(String id, float[] vectorA) {
        return new MemoryRecord(
                id,
                new MemoryRecord.Owner("acme", "alice", null),
                MemoryType.PERSONAL,
                "text of " + id,
                new MemoryRecord.Times(T0, T0, T0),
                Map.of(),
                null,
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.of("a", vectorA),
                List.of());
    }

    private void put(MemoryRecord record) throws Exception {
        memories.pipeInput(record.tenant() + "/" + record.id(), Json.MAPPER.writeValueAsBytes(record));
    }

    private void switchTo(String profile) {
        memories.pipeInput(new TestRecord<>(
                EmbeddingSwitch.KEY, EmbeddingSwitch.value(profile), EmbeddingSwitch.headers(profile), T0));
    }

    /** The query as the API sends it during a change from a to b: b's vector first, each profile's beside. */
    private static SearchQuery duringChange() {
        return SearchQuery.text("acme", "nothing in common", 10)
                .withVector(QUERY_B, "b")
                .withProfiles(Map.of("a", new ProfileVector("a", QUERY_A), "b", new ProfileVector("b", QUERY_B)));
    }

    private List<Hit> search(SearchQuery query) {
        MemoryIndexStore store = (MemoryIndexStore) driver.getStateStore(MemoryIndexUpdater.STORE);
        QueryResult<SearchResult> result =
                store.query(new MemorySearch(query), PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(result.isSuccess(), result::getFailureMessage);
        return result.getResult().hits();
    }

    private String profile() {
        MemoryIndexStore store = (MemoryIndexStore) driver.getStateStore(MemoryIndexUpdater.STORE);
        return store.query(new EmbeddingState(), PositionBound.unbounded(), new QueryConfig(false))
                .getResult();
    }

    @Test
    void searchesUseTheNewModelsVectorsOnlyFromTheSwitchOn() throws Exception {
        open();
        MemoryRecord m1 = memory("m1", new float[] {1, 0, 0});
        MemoryRecord m2 = memory("m2", new float[] {0, 1, 0});
        put(m1);
        put(m2);
        switchTo("a");
        assertEquals("a", profile());
        assertEquals("m1", search(duringChange()).get(0).id(), "model a's vectors: m1 is nearest");
        assertEquals(1.0, search(duringChange()).get(0).scores().vectorScore(), 1e-6);

        // Re-embedded with model b, one memory after the other: until the switch, searches stay on model a.
        put(m1.withMoreVectors(new MemoryRecord.ModelVectors("b", new float[] {1, 0, 0}, null)));
        assertEquals("m1", search(duringChange()).get(0).id(), "half re-embedded: still model a");
        put(m2.withMoreVectors(new MemoryRecord.ModelVectors("b", new float[] {0, 0, 1}, null)));
        assertEquals("m1", search(duringChange()).get(0).id(), "fully re-embedded but not switched: still model a");
        assertEquals("a", profile());

        switchTo("b");
        assertEquals("b", profile());
        List<Hit> hits = search(duringChange());
        assertEquals("m2", hits.get(0).id(), "model b's vectors: m2 is nearest");
        assertEquals(1.0, hits.get(0).scores().vectorScore(), 1e-6);
    }

    @Test
    void theProfileIsInTheCommitPointBesideTheOffset() throws Exception {
        Path folder = stateDir.resolve("index");
        try (MemoryIndex index = MemoryIndex.open(folder)) {
            index.upsert(memory("m1", new float[] {1, 0, 0}));
            index.embeddingProfile("a");
            index.commit(7);
            index.embeddingProfile("b");
            // Not committed: a crash now reopens at the commit point, with the profile it recorded.
        }
        try (MemoryIndex index = MemoryIndex.open(folder)) {
            assertEquals("a", index.embeddingProfile());
            assertEquals(7, index.committedOffset().getAsLong());
            index.embeddingProfile("b");
            index.commit(8);
        }
        try (MemoryIndex index = MemoryIndex.open(folder)) {
            assertEquals("b", index.embeddingProfile());
        }
    }

    @Test
    void aQueryWithoutAVectorOfTheIndexsProfileRunsOnTextOnly() throws Exception {
        open();
        put(memory("m1", new float[] {1, 0, 0}));
        switchTo("a");
        // Embedded by model c only (an instance that cannot load model a): never compared with a's vectors.
        List<Hit> hits = search(SearchQuery.text("acme", "text of m1", 10).withVector(QUERY_A, "c"));
        assertEquals("m1", hits.get(0).id(), "found by its words");
        assertNull(hits.get(0).scores().vectorScore(), "no vector of the index's model to compare");
        // A vector-only query of another model finds nothing rather than another space's neighbours.
        assertEquals(
                List.of(),
                search(SearchQuery.vector("acme", QUERY_A, 10)
                        .withVector(QUERY_A, "c")
                        .withProfiles(Map.of("c", new ProfileVector("c", QUERY_A)))));
    }

    @Test
    void anIndexThatNeverSwitchedAnswersWithTheQuerysOwnVector() throws Exception {
        open();
        put(memory("m1", new float[] {1, 0, 0}));
        memories.pipeInput(new TestRecord<>("acme/none", null, new RecordHeaders(), T0));
        assertEquals("", profile());
        assertEquals(
                1.0,
                search(SearchQuery.vector("acme", QUERY_A, 10).withVector(QUERY_A, "a"))
                        .get(0)
                        .scores()
                        .vectorScore(),
                1e-6);
    }
}
