package io.reme.api.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.api.ApiException;
import io.reme.api.Callers;
import io.reme.api.cluster.Instance;
import io.reme.api.cluster.NotStartedStreams;
import io.reme.api.cluster.StoreLags;
import io.reme.api.cluster.StreamsStores;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LanguageRoutedEmbeddingModel;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.QueryResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The checks of a {@code /v1/search} body, before anything is embedded or searched. */
class SearchQueriesTest {
    private final AtomicInteger embedded = new AtomicInteger();
    private final StreamsStores streams = new NotStartedStreams();
    private final SearchQueries searches = new SearchQueries(
            streams,
            Instance.NONE,
            "memories",
            1,
            new MemoryPartitioning(1),
            countingModel(),
            new QueryLimits(200, 20),
            new StoreLags(streams));

    private EmbeddingModel countingModel() {
        return new EmbeddingModel() {
            @Override
            public String id() {
                return "counting";
            }

            @Override
            public int dimensions() {
                return 2;
            }

            @Override
            public List<float[]> embed(List<String> texts) {
                embedded.addAndGet(texts.size());
                return texts.stream().map(t -> new float[] {1, 0}).toList();
            }

            @Override
            public void close() {}
        };
    }

    private static JsonNode body(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private ApiException refused(String json) {
        return assertThrows(ApiException.class, () -> searches.parse("acme", body(json)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"query\":\"q\",\"from\":\"garbage\"}                       | 'from'",
                "{\"query\":\"q\",\"to\":12345}                               | 'to'",
                "{\"query\":\"q\",\"to\":\"+1000000000-01-01T00:00:00Z\"}     | 'to'",
                "{\"query\":\"q\",\"from\":\"2026-02-01T00:00:00Z\",\"to\":\"2026-01-01T00:00:00Z\"} | 'from'",
                "{\"query\":\"q\",\"k\":\"ten\"}                              | 'k'",
                "{\"query\":\"q\",\"k\":2.5}                                  | 'k'",
                "{\"query\":\"q\",\"k\":5000000000}                           | 'k'",
                "{\"query\":\"q\",\"k\":0}                                    | 'k'",
                "{\"query\":\"q\",\"minScore\":\"high\"}                      | 'minScore'",
                "{\"query\":\"q\",\"minScore\":2}                             | 'minScore'",
                "{\"query\":\"q\",\"fusion\":\"best\"}                        | 'fusion'",
                "{\"query\":\"q\",\"types\":[\"feelings\"]}                   | 'types'",
                "{\"query\":\"q\",\"types\":5}                                | 'types'",
                "{\"query\":\"q\",\"users\":{\"a\":1}}                        | 'users'",
                "{\"query\":\"q\",\"sessions\":[1]}                           | 'sessions'",
                "{\"query\":\"q\",\"targets\":true}                           | 'targets'",
                "{\"query\":42}                                               | 'query'",
                "{\"query\":\"  \"}                                           | 'query'",
            })
    void aBadParameterIs400NamingIt(String json, String named) {
        ApiException e = refused(json);
        assertEquals(400, e.status());
        assertEquals("invalid_query", e.code());
        assertTrue(e.getMessage().contains(named), e::getMessage);
        assertEquals(0, embedded.get(), "nothing is embedded for a refused query");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"query\":\"q\",\"types\":\"personal\"}                   | 'types'",
                "{\"query\":\"q\",\"types\":[7]}                              | 'types'",
                "{\"query\":\"q\",\"k\":\"5\"}                              | 'k'",
                "{\"query\":\"q\",\"timeRange\":{\"from\":\"garbage\"}}   | 'timeRange.from'",
                "{\"query\":\"q\",\"timeRange\":{\"to\":12345}}             | 'timeRange.to'",
                "{\"query\":\"q\",\"users\":[1]}                              | 'users'",
                "{\"query\":7}                                                    | 'query'",
            })
    void aBadRetrieveParameterIs400NamingIt(String json, String named) {
        ApiException e = assertThrows(
                ApiException.class, () -> new MemoryRetrieval(searches).retrieve(Callers.ACME, body(json)));
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains(named), e::getMessage);
        assertEquals(0, embedded.get());
    }

    @Test
    void aTextOverTheLimitsIs400BeforeItIsEmbedded() {
        ObjectNode tooLong = Json.MAPPER.createObjectNode().put("query", "word ".repeat(41));
        ApiException chars = assertThrows(ApiException.class, () -> searches.parse("acme", tooLong));
        assertEquals(400, chars.status());
        assertEquals("query_too_long", chars.code());
        assertTrue(chars.getMessage().contains("200 characters"), chars::getMessage);

        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 21; i++) {
            words.append("w").append(i).append(' ');
        }
        ObjectNode tooMany = Json.MAPPER.createObjectNode().put("query", words.toString());
        ApiException terms = assertThrows(ApiException.class, () -> searches.parse("acme", tooMany));
        assertEquals("query_too_long", terms.code());
        assertTrue(terms.getMessage().contains("20 search terms"), terms::getMessage);
        assertEquals(0, embedded.get());
    }

    @Test
    void anIndexThatFailsTheSearchFailsItWhileAnAbsentPartitionIsOnlyMissing() {
        SearchQuery query = SearchQuery.text("acme", "trains", 5);
        Map<Integer, QueryResult<SearchResult>> results = new TreeMap<>();
        results.put(0, QueryResult.forResult(new SearchResult(List.of(), null)));
        results.put(1, QueryResult.forFailure(FailureReason.NOT_ACTIVE, "partition 1 is not active here"));
        SearchQueries.PartitionHits found = SearchQueries.collect(query, results);
        assertEquals(Set.of(0), found.answered(), "a partition away is left for the caller to report missing");

        results.put(
                2,
                QueryResult.forFailure(
                        FailureReason.STORE_EXCEPTION, "IndexSearcher$TooManyClauses: maxClauseCount is set to 1024"));
        ApiException failed = assertThrows(ApiException.class, () -> SearchQueries.collect(query, results));
        assertEquals(500, failed.status());
        assertEquals("search_failed", failed.code());
        assertTrue(
                failed.getMessage().contains("partition 2")
                        && failed.getMessage().contains("TooManyClauses"),
                failed::getMessage);
    }

    @Test
    void aGoodQueryIsParsedAndEmbeddedOnce() {
        SearchQuery query = searches.parse(
                "acme",
                body("{\"query\":\"rotate logs\",\"k\":3,\"minScore\":0.5,"
                        + "\"fusion\":\"weighted\",\"types\":[\"personal\"],\"users\":\"u1\",\"from\":\"2026-01-01T00:00:00Z\","
                        + "\"to\":\"2026-02-01T00:00:00Z\"}"));
        assertEquals(3, query.k());
        assertEquals(0.5, query.ranking().minScore());
        assertEquals(Set.of("u1"), query.filter().users());
        assertEquals("counting", query.vectorModel());
        assertEquals(1, embedded.get());
    }

    @Test
    void aQueryIsEmbeddedByTheModelOfItsScript() {
        EmbeddingModel chinese = new EmbeddingModel() {
            @Override
            public String id() {
                return "zh";
            }

            @Override
            public int dimensions() {
                return 3;
            }

            @Override
            public List<float[]> embed(List<String> texts) {
                return texts.stream().map(t -> new float[] {0, 1, 0}).toList();
            }

            @Override
            public void close() {}
        };
        SearchQueries routed = new SearchQueries(
                streams,
                Instance.NONE,
                "memories",
                1,
                new MemoryPartitioning(1),
                new LanguageRoutedEmbeddingModel(countingModel(), chinese),
                new QueryLimits(200, 100),
                new StoreLags(streams));

        SearchQuery zh = routed.parse("acme", body("{\"query\":\"我上司的邮箱地址是多少？\"}"));
        assertEquals("zh", zh.vectorModel());
        assertEquals(3, zh.vectorValues().length);
        assertEquals(0, embedded.get(), "the English model is not asked");
        SearchQuery en = routed.parse("acme", body("{\"query\":\"what is my boss's email address?\"}"));
        assertEquals("counting", en.vectorModel());
        assertEquals(2, en.vectorValues().length);
        assertEquals(1, embedded.get());
    }
}
