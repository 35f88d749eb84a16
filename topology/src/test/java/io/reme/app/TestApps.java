package io.reme.app;

import io.reme.config.AppConfig;
import io.reme.config.ConfigField;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Settings shared by the integration tests that start {@link RemeApp} against a test broker. */
final class TestApps {
    static final String ACME_KEY = "acme-key-0123456789abcdef";
    static final String GLOBEX_KEY = "globex-key-0123456789abcdef";
    static final String API_KEYS = "acme:" + ACME_KEY + ",globex:" + GLOBEX_KEY;
    static final String REQUEST_SECRET = "test-request-secret-0123456789abcdef";

    /**
     * A small context so a few turns cross the threshold: floor(4000 x 0.7 x 0.95) = 2660 tokens,
     * keep 800. Tool outputs above 12 KB are cut at once, above 2 KB once they age out; a failed
     * compaction may be retried on the next message.
     */
    static final Map<String, String> SMALL_CONTEXT = Map.of(
            AppConfig.MAX_INPUT_LENGTH.name(), "4000",
            AppConfig.RESERVE.name(), "800",
            AppConfig.TOOL_RECENT_BYTES.name(), "12000",
            AppConfig.TOOL_OLD_BYTES.name(), "2000",
            AppConfig.RETRY_BACKOFF.name(), "0s");

    private TestApps() {}

    /** {@code options}, named as in a config file, as the environment variables an operator would set. */
    static Map<String, String> environment(Map<String, String> options) {
        Map<String, String> left = new HashMap<>(options);
        Map<String, String> env = new HashMap<>();
        for (ConfigField<?> field : AppConfig.FIELDS) {
            if (left.containsKey(field.name())) {
                env.put(field.envName(), left.remove(field.name()));
            }
        }
        if (!left.isEmpty()) {
            throw new AssertionError("every setting has an environment variable: " + left);
        }
        return env;
    }

    /** An instance on {@code bootstrap} with its own data dir, a free HTTP port, four partitions and explicit keys. */
    static AppConfig config(String bootstrap, Path dataDir, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>();
        options.put(AppConfig.BOOTSTRAP_SERVERS.name(), bootstrap);
        options.put(AppConfig.DATA_DIR.name(), dataDir.toString());
        options.put(AppConfig.HTTP_PORT.name(), "0");
        options.put(AppConfig.PARTITIONS.name(), "4");
        options.put(AppConfig.API_KEYS.name(), API_KEYS);
        // A cluster deployment must share one: the instances of a test share this one.
        options.put(AppConfig.REQUEST_SECRET.name(), REQUEST_SECRET);
        // These tests play the LLM worker themselves.
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "false");
        // Text search is enough here; the local model is exercised by the search and API tests.
        options.put(AppConfig.EMBEDDING.name(), "none");
        options.putAll(extra);
        return AppConfig.of(options);
    }
}
