package io.reme.bench;

import io.reme.config.AppConfig;
import io.reme.config.ConfigField;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The application's options under the fault benches: a small window, so sessions compact every few
 * turns, tool outputs cut early, and every retry and timeout compressed into seconds, in scale with
 * outages that last seconds; the LLM is the bench's local endpoint.
 */
final class FaultBenchOptions {
    static final int MAX_INPUT = 4000;
    static final Duration PENDING_TIMEOUT = Duration.ofSeconds(60);

    private FaultBenchOptions() {}

    /** Option names and values. */
    static Map<String, String> compressed(int partitions, String llmUrl, Duration llmTimeout, Duration idleAfter) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("reme.topic.partitions", Integer.toString(partitions));
        options.put("reme.context.max-input-length", Integer.toString(MAX_INPUT));
        options.put("reme.context.reserve", "800");
        options.put("reme.tool-result.recent-bytes", "12000");
        options.put("reme.tool-result.old-bytes", "2000");
        options.put("reme.compaction.retry-backoff", "2s");
        options.put("reme.compaction.pending-timeout", PENDING_TIMEOUT.toSeconds() + "s");
        options.put("reme.llm.base-url", llmUrl);
        options.put("reme.llm.api-key", "bench");
        options.put("reme.llm.model", LocalChatServer.MODEL);
        options.put("reme.llm.timeout", llmTimeout.toSeconds() + "s");
        options.put("reme.llm.max-attempts", "3");
        options.put("reme.llm.backoff", "200ms");
        options.put("reme.llm.backoff-max", "2s");
        options.put("reme.session.idle-after", idleAfter.toSeconds() + "s");
        // A failed diary span is sent again after 2 s, doubling: outages here last seconds, not hours.
        options.put("reme.diary.retry-backoff", "2s");
        options.put("reme.workspace.watch-interval", "1s");
        return options;
    }

    /**
     * The same options as the environment variables an operator would set, each named by its option's
     * declaration (a hand-written name can be wrong: {@code REME_LLM_BASE_URL} is no variable).
     */
    static Map<String, String> asEnvironment(Map<String, String> options) {
        Map<String, String> env = new LinkedHashMap<>();
        options.forEach((name, value) -> {
            ConfigField<?> field = AppConfig.FIELDS.stream()
                    .filter(f -> f.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no option " + name));
            env.put(field.envName(), value);
        });
        return env;
    }

    /**
     * Writes {@code options} and a fresh request secret to {@code file}, readable by its owner only (it
     * holds API keys and the secret), as an operator's config file.
     */
    static Path writeConfig(Path file, String header, Map<String, String> options) throws IOException {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        StringBuilder text = new StringBuilder("# " + header + "\n");
        text.append("reme.request.secret=")
                .append(HexFormat.of().formatHex(secret))
                .append('\n');
        options.forEach(
                (name, value) -> text.append(name).append('=').append(value).append('\n'));
        Files.createDirectories(file.getParent());
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}
