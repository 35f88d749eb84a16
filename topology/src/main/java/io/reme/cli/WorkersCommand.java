package io.reme.cli;

import io.opentelemetry.api.OpenTelemetry;
import io.reme.api.memory.HttpMemoryLookup;
import io.reme.api.tenant.ApiKeys;
import io.reme.api.tenant.TenantDirectory;
import io.reme.app.Providers;
import io.reme.app.RequestSecrets;
import io.reme.app.Tracing;
import io.reme.app.WorkerProcess;
import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.embedding.EmbeddingModel;
import io.reme.http.HttpSettings;
import io.reme.prometheus.MetricsServer;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.provider.LlmClient;
import io.reme.tokens.TokenCounter;
import io.reme.worker.MemoryLookup;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code workers}: only the LLM workers and the memory embedder, against an existing cluster, to scale
 * them apart from the Streams app (run with {@code reme.workers.embedded=false}).
 */
@Command(
        name = "workers",
        mixinStandardHelpOptions = true,
        description = "Run only the LLM workers and the memory embedder against --bootstrap-servers "
                + "(scale them separately).")
final class WorkersCommand implements Callable<Integer> {
    @Mixin
    CommonOptions options;

    @Override
    public Integer call() throws InterruptedException, IOException {
        AppConfig config = options.load(Map.of());
        if (config.embeddedBroker()) {
            throw new ConfigException(List.of("reme.bootstrap.servers: the workers command needs a cluster "
                    + "(--bootstrap-servers); the embedded default runs workers inside 'run'"));
        }
        TokenCounter tokens =
                TokenCounter.forEncoding(config.get(AppConfig.TOKEN_ENCODING), config.get(AppConfig.IMAGE_TOKENS));
        String bootstrap = config.get(AppConfig.BOOTSTRAP_SERVERS);
        PrometheusMetrics metrics = new PrometheusMetrics(config.metricsTenants());
        MetricsServer server = MetricsServer.start(
                config.get(AppConfig.HTTP_HOST), config.get(AppConfig.HTTP_PORT), HttpSettings.from(config), metrics);
        EmbeddingModel embeddings = Providers.embeddings(config);
        String searchUrl = config.get(AppConfig.WORKERS_SEARCH_URL);
        MemoryLookup lookup = searchUrl.isBlank()
                ? MemoryLookup.NONE
                : new HttpMemoryLookup(
                        searchUrl,
                        new TenantDirectory(
                                ApiKeys.parse(config.get(AppConfig.API_KEYS)),
                                null,
                                Clock.systemUTC(),
                                RequestSecrets.resolve(config)));
        OpenTelemetry traces = Tracing.fromEnvironment(System.getenv());
        WorkerProcess workers = WorkerProcess.start(config, bootstrap, tokens, metrics, lookup, embeddings, traces);
        CountDownLatch stopped = new CountDownLatch(1);
        ShutdownHook.install(
                () -> {
                    workers.close();
                    // After the workers: the spans of the requests they finished are sent, not dropped.
                    Tracing.close(traces);
                    if (embeddings != null) {
                        embeddings.close();
                    }
                    server.close();
                    metrics.close();
                },
                stopped);
        LlmClient llm = workers.llm();
        System.out.println("READY workers provider=" + llm.id() + " bootstrap=" + bootstrap + " lookup="
                + (searchUrl.isBlank() ? "none" : searchUrl) + " metrics=http://"
                + config.get(AppConfig.HTTP_HOST) + ":" + server.port() + "/metrics");
        stopped.await();
        return 0;
    }
}
