package io.reme.cli;

import io.reme.app.Providers;
import io.reme.app.RemeApp;
import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.prometheus.MetricsServer;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.provider.LlmClient;
import io.reme.tokens.TokenCounter;
import io.reme.worker.ExtractionSetup;
import io.reme.worker.LlmWorkerPool;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code workers}: only the LLM workers, against an existing cluster, to scale them apart from the Streams app. */
@Command(name = "workers", mixinStandardHelpOptions = true,
        description = "Run only the LLM workers against --bootstrap-servers (scale them separately).")
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
        TokenCounter tokens = TokenCounter.forEncoding(config.get(AppConfig.TOKEN_ENCODING),
                config.get(AppConfig.IMAGE_TOKENS));
        LlmClient llm = Providers.llm(config, tokens);
        String bootstrap = config.get(AppConfig.BOOTSTRAP_SERVERS);
        PrometheusMetrics metrics = new PrometheusMetrics(config.metricsTenants());
        MetricsServer server = MetricsServer.start(config.get(AppConfig.HTTP_HOST), config.get(AppConfig.HTTP_PORT),
                metrics);
        LlmWorkerPool pool = LlmWorkerPool.start(RemeApp.clientProps(config, bootstrap), config.topics(),
                RemeApp.workerGroup(config), Providers.workers(config), llm, tokens, metrics,
                ExtractionSetup.withoutLookup(config.get(AppConfig.MEMORY_EXTRACT),
                        config.get(AppConfig.MEMORY_BUCKETS)));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            pool.close();
            llm.close();
            server.close();
            metrics.close();
            stopped.countDown();
        }, "reme-shutdown"));
        System.out.println("READY workers provider=" + llm.id() + " bootstrap=" + bootstrap + " metrics=http://"
                + config.get(AppConfig.HTTP_HOST) + ":" + server.port() + "/metrics");
        stopped.await();
        return 0;
    }
}
