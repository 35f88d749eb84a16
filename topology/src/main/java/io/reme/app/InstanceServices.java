package io.reme.app;

import io.reme.api.Caller;
import io.reme.api.cluster.Instance;
import io.reme.api.cluster.InstanceProof;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.cluster.StoreLags;
import io.reme.api.cluster.StreamsStores;
import io.reme.api.context.ContextQueries;
import io.reme.api.context.MessageIngest;
import io.reme.api.context.ToolResults;
import io.reme.api.diary.DiaryQueries;
import io.reme.api.diary.DiaryWriter;
import io.reme.api.erasure.UserErasure;
import io.reme.api.memory.MemoryQueries;
import io.reme.api.memory.MemoryRetrieval;
import io.reme.api.memory.MemoryWriter;
import io.reme.api.memory.SearchMemoryLookup;
import io.reme.api.memory.SearchQueries;
import io.reme.api.memory.SearchSetup;
import io.reme.api.session.SessionListing;
import io.reme.api.tenant.TenantAdmin;
import io.reme.api.tenant.TenantDirectory;
import io.reme.api.tenant.TenantErasure;
import io.reme.api.tenant.TenantQuotas;
import io.reme.api.tenant.TenantSetup;
import io.reme.config.AppConfig;
import io.reme.context.ContextPolicy;
import io.reme.edge.ApiServices;
import io.reme.edge.Health;
import io.reme.edge.StreamThreadFailures;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.session.SessionSettings;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import io.reme.worker.MemoryLookup;
import io.reme.worker.MemoryQuota;
import io.reme.workspace.Workspace;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services of one instance, built once, before the HTTP edge that routes to them and the workers that share
 * some of them: the erasure before the tenants' admin that hands it deleted tenants, the search before the
 * workers' memory lookup.
 *
 * @param api what the routes and MCP tools answer from
 * @param lookup existing memories as this instance's LLM workers see them (through its search fan-out)
 * @param quota the tenants' memory count limits as the workers hold extractions to them
 */
public record InstanceServices(ApiServices api, MemoryLookup lookup, MemoryQuota quota) {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceServices.class);

    /**
     * Where the services read and write.
     *
     * @param streams the Streams instance whose stores they read
     * @param self this instance's address as other instances reach it (Streams' {@code application.server})
     * @param producer messages, memory writes, diary edits and admin records
     * @param erasureProducer erasure requests, transactional ({@code initTransactions} done)
     */
    public record Kafka(
            StreamsStores streams,
            HostInfo self,
            Topics topics,
            Producer<byte[], byte[]> producer,
            Producer<byte[], byte[]> erasureProducer) {}

    /**
     * @param settings the sessions' settings, with the deployment's request secret
     * @param encoding the token encoding context budgets count in
     * @param adminKey the admin API's key (empty: no admin API)
     * @param tracing the spans of the searches made in a trace
     */
    public static InstanceServices build(
            AppConfig config,
            Kafka kafka,
            SessionSettings settings,
            String encoding,
            SearchSetup search,
            PrometheusMetrics metrics,
            StreamThreadFailures failures,
            TenantDirectory directory,
            String adminKey,
            RecordTracing tracing) {
        StreamsStores streams = kafka.streams();
        Topics topics = kafka.topics();
        Duration visibility = config.get(AppConfig.MEMORY_VISIBILITY_TIMEOUT);
        int inputMaxBytes = config.get(AppConfig.INPUT_MAX_BYTES);
        InstanceProof proof = InstanceProof.of(settings.requestSecret());
        Instance self = new Instance(kafka.self(), proof);
        StoreLags lags = new StoreLags(streams);
        OwnerRouting routing = new OwnerRouting(streams, lags, self);
        // The window a tenant's sessions run under here: its policy's over this instance's settings.
        Function<String, ContextPolicy> windows = tenant -> directory.contextPolicy(settings, tenant);
        Workspace workspace = new Workspace(config.workspaceDir());

        MessageIngest ingest = new MessageIngest(
                kafka.producer(),
                topics.messages(),
                inputMaxBytes,
                settings.input().timeBounds());
        SearchQueries searches = new SearchQueries(
                streams,
                self,
                search.memoriesTopic(),
                search.partitions(),
                search.partitioning(),
                search.embeddings(),
                search.limits(),
                lags,
                search.profiles(),
                tracing);
        MemoryQueries memories = new MemoryQueries(
                streams,
                routing,
                self,
                search.memoriesTopic(),
                new MemoryWriter(
                        kafka.producer(), topics.memories(), search.partitions(), search.partitioning(), tracing),
                search.embeddings(),
                visibility,
                directory);
        UserErasure erasure = new UserErasure(
                streams,
                self,
                memories,
                kafka.erasureProducer(),
                settings.requestSecret(),
                topics,
                workspace,
                visibility);
        TenantSetup tenants = new TenantSetup(
                directory,
                new TenantAdmin(
                        adminKey,
                        directory,
                        kafka.producer(),
                        topics.tenants(),
                        tenantErasure(erasure, directory),
                        Clock.systemUTC(),
                        visibility),
                new TenantQuotas(directory, metrics, System::nanoTime));
        ApiServices api = new ApiServices(
                new ContextQueries(streams, routing, windows, encoding),
                ingest,
                searches,
                memories,
                new MemoryRetrieval(searches),
                new DiaryQueries(
                        streams,
                        routing,
                        new DiaryWriter(
                                kafka.producer(), topics.diaryEdits(), settings.requestSecret(), inputMaxBytes)),
                new ToolResults(workspace),
                new SessionListing(streams, self, topics.messages(), ingest::partitions, windows),
                erasure,
                tenants,
                new Health(streams, failures),
                metrics,
                proof);
        return new InstanceServices(api, new SearchMemoryLookup(searches, directory), memories::room);
    }

    /**
     * A deleted tenant's data goes the way of {@code DELETE /v1/tenant}, on a thread of its own: the
     * admin's answer does not wait for it (its keys are already refused), and the erasure's own
     * answer is at {@code GET /v1/tenant/erasure} for an instance key or in the log.
     */
    private static TenantErasure tenantErasure(UserErasure erasure, TenantDirectory directory) {
        return tenant -> {
            Caller instance = directory.instanceCaller(tenant);
            Thread.ofVirtual().name("reme-erase-" + tenant).start(() -> {
                try {
                    erasure.eraseTenant(instance);
                } catch (RuntimeException e) {
                    LOG.error("erasure of a deleted tenant failed tenant={}", tenant, e);
                }
            });
            return "started";
        };
    }
}
