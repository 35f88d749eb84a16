package io.reme.app;

import io.opentelemetry.api.OpenTelemetry;
import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingModel;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.metrics.PipelineMetrics;
import io.reme.provider.LlmClient;
import io.reme.tokens.TokenCounter;
import io.reme.worker.ExtractionSetup;
import io.reme.worker.LlmWorkerPool;
import io.reme.worker.MemoryEmbedder;
import io.reme.worker.MemoryLookup;
import io.reme.worker.MemoryQuota;
import io.reme.worker.MemoryReembedder;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The worker side: the LLM worker pool (compaction, diaries, memory extraction), the memory
 * embedder that moves memories from {@code memories.pending} to {@code memories}, and the re-embedder that gives
 * every memory the configured model's vectors after a change of model. They run where
 * this is started: inside {@code run} by default, or on their own with the {@code workers} command;
 * either way nothing reaches the index unless this runs somewhere. The embedding model is the
 * caller's (null: memories are indexed without vectors) and is not closed here.
 */
public final class WorkerProcess implements AutoCloseable {
    private final LlmClient llm;
    private final LlmWorkerPool pool;
    private final MemoryEmbedder embedder;
    private final MemoryReembedder reembedder;

    private WorkerProcess(LlmClient llm, LlmWorkerPool pool, MemoryEmbedder embedder, MemoryReembedder reembedder) {
        this.llm = llm;
        this.pool = pool;
        this.embedder = embedder;
        this.reembedder = reembedder;
    }

    /**
     * @param lookup the existing memories an extraction merges with ({@link MemoryLookup#NONE}: only
     *        those of the same request)
     * @param traces where the workers' spans go (the caller's, closed by the caller after this)
     */
    public static WorkerProcess start(
            AppConfig config,
            String bootstrap,
            TokenCounter tokens,
            PipelineMetrics metrics,
            MemoryLookup lookup,
            EmbeddingModel embeddings,
            OpenTelemetry traces) {
        return start(
                config,
                bootstrap,
                tokens,
                metrics,
                lookup,
                embeddings,
                tenant -> Integer.MAX_VALUE,
                MemoryQuota.NONE,
                traces);
    }

    /**
     * @param tenantConcurrency each tenant's cap on its LLM requests in the workers' hands at once
     * @param quota the tenants' memory count limits new extracted memories are held to ({@link
     *     MemoryQuota#NONE} in the separate {@code workers} process, which does not see the policies)
     */
    public static WorkerProcess start(
            AppConfig config,
            String bootstrap,
            TokenCounter tokens,
            PipelineMetrics metrics,
            MemoryLookup lookup,
            EmbeddingModel embeddings,
            ToIntFunction<String> tenantConcurrency,
            MemoryQuota quota,
            OpenTelemetry traces) {
        LlmClient llm = Providers.llm(config, tokens);
        LlmWorkerPool pool = null;
        Map<String, Object> clientProps = clientProps(config, bootstrap);
        try {
            pool = LlmWorkerPool.start(new LlmWorkerPool.Setup.Builder(
                            clientProps,
                            config.topics(),
                            RemeApp.workerGroup(config),
                            Providers.workers(config),
                            llm,
                            tokens)
                    .metrics(metrics)
                    .extraction(
                            new ExtractionSetup(
                                    config.get(AppConfig.MEMORY_EXTRACT),
                                    lookup,
                                    new MemoryPartitioning(config.get(AppConfig.MEMORY_BUCKETS)),
                                    quota),
                            RequestSecrets.resolve(config))
                    .tenantConcurrency(tenantConcurrency)
                    .openTelemetry(traces)
                    .build());
            MemoryEmbedder embedder = MemoryEmbedder.start(
                    clientProps,
                    config.topics(),
                    config.get(AppConfig.APPLICATION_ID) + "-embedder",
                    embeddings,
                    metrics);
            // Every memory gets the configured model's vectors, whatever model made it: a change of model re-embeds.
            MemoryReembedder reembedder = embeddings == null
                    ? null
                    : MemoryReembedder.start(
                            clientProps,
                            config.topics(),
                            config.get(AppConfig.APPLICATION_ID) + "-reembedder",
                            embeddings,
                            metrics);
            return new WorkerProcess(llm, pool, embedder, reembedder);
        } catch (RuntimeException e) {
            if (pool != null) {
                pool.close();
            }
            llm.close();
            throw e;
        }
    }

    /**
     * The clients' settings: the workers' consumer groups give a killed process up after the same
     * session timeout as the Streams group, so its requests move on as soon as its tasks do;
     * {@code kafka.*} overrides win.
     */
    static Map<String, Object> clientProps(AppConfig config, String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        long sessionMs = config.get(AppConfig.SESSION_TIMEOUT).toMillis();
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) sessionMs);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) (sessionMs / 3));
        props.putAll(RemeApp.clientProps(config, bootstrap));
        return props;
    }

    public LlmClient llm() {
        return llm;
    }

    @Override
    public void close() {
        pool.close();
        if (reembedder != null) {
            reembedder.close();
        }
        embedder.close();
        llm.close();
    }
}
