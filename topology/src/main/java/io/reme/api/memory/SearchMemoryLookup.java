package io.reme.api.memory;

import io.reme.api.ApiException;
import io.reme.api.tenant.TenantDirectory;
import io.reme.json.Json;
import io.reme.provider.MergeTask;
import io.reme.search.Hit;
import io.reme.search.MemoryType;
import io.reme.search.Retrieval;
import io.reme.worker.MemoryLookup;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers' view of existing memories: a search of the tenant's memories of one type and target
 * through the same fan-out as {@code POST /v1/search} (so it sees every partition, here or on other
 * instances). A search that cannot run (no key for the tenant, Streams not running) finds nothing
 * and is logged; the merge then compares only with the request's own memories.
 */
public final class SearchMemoryLookup implements MemoryLookup {
    private static final Logger LOG = LoggerFactory.getLogger(SearchMemoryLookup.class);

    private final SearchQueries searches;
    private final TenantDirectory directory;

    public SearchMemoryLookup(SearchQueries searches, TenantDirectory directory) {
        this.searches = searches;
        this.directory = directory;
    }

    @Override
    public List<MergeTask.Neighbour> nearest(String tenant, MemoryType type, String target, String text, int k) {
        try {
            SearchQueries.Answer answer = searches.search(
                    directory.instanceCaller(tenant), Json.MAPPER.valueToTree(request(type, target, text, k)));
            if (answer.partial()) {
                LOG.warn("memory lookup partial tenant={} missingPartitions={}", tenant, answer.missingPartitions());
            }
            return answer.hits().stream().map(SearchMemoryLookup::neighbour).toList();
        } catch (ApiException e) {
            LOG.warn("memory lookup failed tenant={} error={}", tenant, e.getMessage());
            return List.of();
        }
    }

    /**
     * The {@code /v1/search} body of a lookup: the memories of one type and target nearest to the text, searched
     * whole ({@link Retrieval#LOOKUP}: a memory's text is not a question to split or hop through).
     */
    static Map<String, Object> request(MemoryType type, String target, String text, int k) {
        return Map.of(
                "retrieval",
                Retrieval.LOOKUP.name(),
                "query",
                text,
                "k",
                k,
                "types",
                List.of(type.name().toLowerCase(Locale.ROOT)),
                "targets",
                List.of(target));
    }

    /** A hit as the merge sees it: the memory and how close its vector is to the new one. */
    static MergeTask.Neighbour neighbour(Hit hit) {
        return new MergeTask.Neighbour(hit.memory(), hit.scores().vectorScore());
    }
}
