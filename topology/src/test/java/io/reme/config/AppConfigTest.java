package io.reme.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.context.ContextPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AppConfigTest {
    private static final String MAX_INPUT = "reme.context.max-input-length";
    private static final String MAX_INPUT_ENV = "REME_CONTEXT_MAX_INPUT_LENGTH";

    private static ConfigException rejected(
            Map<String, String> file, Map<String, String> env, Map<String, String> overrides) {
        return assertThrows(ConfigException.class, () -> AppConfig.load(file, env, overrides));
    }

    /** Asserts that exactly one problem starts with {@code option} and returns it. */
    private static String problemOf(ConfigException e, String option) {
        List<String> matching =
                e.problems().stream().filter(p -> p.startsWith(option)).toList();
        assertEquals(1, matching.size(), () -> "one problem for " + option + " in " + e.problems());
        assertTrue(e.getMessage().contains(matching.get(0)), e::getMessage);
        return matching.get(0);
    }

    @Test
    void defaults() {
        AppConfig config = AppConfig.of(Map.of());

        assertEquals(new ContextPolicy(131072, 0.7, 10000, 0), config.contextPolicy());
        assertEquals(87162, config.contextPolicy().baseThreshold());
        assertEquals(6, config.get(AppConfig.PARTITIONS));
        assertEquals(-1, config.get(AppConfig.REPLICATION_FACTOR));
        assertEquals(2, config.get(AppConfig.STREAM_THREADS));
        assertEquals("exactly_once_v2", config.get(AppConfig.PROCESSING_GUARANTEE));
        assertEquals(100, config.get(AppConfig.COMMIT_INTERVAL_MS));
        assertEquals("127.0.0.1", config.get(AppConfig.HTTP_HOST));
        assertEquals(8080, config.get(AppConfig.HTTP_PORT));
        assertEquals("", config.get(AppConfig.API_KEYS));
        assertEquals("reme-streams", config.get(AppConfig.APPLICATION_ID));
        assertEquals("reme.messages", config.topics().messages());
        assertEquals("o200k_base", config.get(AppConfig.TOKEN_ENCODING));
        assertEquals(1000, config.get(AppConfig.IMAGE_TOKENS));
        assertEquals(Duration.ofDays(3), config.get(AppConfig.TOOL_RETENTION));
        assertEquals(Duration.ofMinutes(1), config.get(AppConfig.RETRY_BACKOFF));
        assertEquals(Duration.ofMinutes(15), config.get(AppConfig.PENDING_TIMEOUT));
        assertEquals(ZoneId.of("UTC"), config.get(AppConfig.ZONE));
        assertEquals(4 * 1024 * 1024, config.get(AppConfig.INPUT_MAX_BYTES));
        assertEquals(16 * 1024 * 1024, config.get(AppConfig.REQUEST_MAX_BYTES));
        assertTrue(config.embeddedBroker());
        assertEquals(Path.of("reme-data").toAbsolutePath().normalize(), config.dataDir());
        assertTrue(config.tenantPolicies().isEmpty());
        assertTrue(config.kafkaOverrides().isEmpty());
        assertEquals(config.contextPolicy(), config.sessionSettings().policyFor("anyone"));
    }

    @Test
    void theWorkingDirectoryAndItsSinksFollowTheDeployment() {
        AppConfig embedded = AppConfig.of(Map.of(AppConfig.DATA_DIR.name(), "/srv/reme"));
        assertEquals(Path.of("/srv/reme/workspace"), embedded.workspaceDir());
        assertTrue(embedded.sinksEmbedded(), "one instance on the embedded broker writes its own files");
        AppConfig cluster = AppConfig.of(Map.of(
                AppConfig.BOOTSTRAP_SERVERS.name(), "kafka:9092", AppConfig.WORKSPACE_DIR.name(), "/mnt/shared/ws"));
        assertEquals(Path.of("/mnt/shared/ws"), cluster.workspaceDir());
        assertEquals(false, cluster.sinksEmbedded(), "several instances leave the files to a Connect cluster");
        assertTrue(AppConfig.of(Map.of(
                        AppConfig.BOOTSTRAP_SERVERS.name(), "kafka:9092", AppConfig.SINKS_EMBEDDED.name(), "true"))
                .sinksEmbedded());
        assertEquals(
                Duration.ZERO,
                AppConfig.of(Map.of(AppConfig.WATCH_INTERVAL.name(), "0s")).get(AppConfig.WATCH_INTERVAL));
        assertThrows(ConfigException.class, () -> AppConfig.of(Map.of(AppConfig.SINKS_EMBEDDED.name(), "maybe")));
    }

    @Test
    void everyDefaultIsValidOnItsOwn() {
        for (ConfigField<?> field : AppConfig.FIELDS) {
            field.parse(field.defaultValue());
        }
        Set<String> names = new HashSet<>();
        AppConfig.FIELDS.forEach(f -> assertTrue(names.add(f.name()), "duplicate option " + f.name()));
    }

    @Test
    void envNamesAreDerivedFromPropertyNames() {
        assertEquals(MAX_INPUT_ENV, AppConfig.MAX_INPUT_LENGTH.envName());
        assertEquals("REME_TOOL_RESULT_RECENT_BYTES", AppConfig.TOOL_RECENT_BYTES.envName());
        assertEquals("REME_HTTP_ADVERTISED_HOST", AppConfig.ADVERTISED_HOST.envName());
        Set<String> envNames = new HashSet<>();
        Set<String> conventional = Set.of("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL");
        for (ConfigField<?> field : AppConfig.FIELDS) {
            String env = field.envName();
            if (field.env() == null) {
                assertTrue(env.matches("REME_[A-Z0-9_]+"), env);
                assertEquals(
                        field.name().toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'), env);
            } else {
                assertTrue(conventional.contains(env), "only the LLM endpoint options keep their usual names: " + env);
            }
            assertTrue(envNames.add(env), "two options share " + env);
        }
        assertEquals("LLM_BASE_URL", AppConfig.LLM_BASE_URL.envName());
    }

    @Test
    void theLlmEndpointIsReadFromItsConventionalVariables() {
        AppConfig config = AppConfig.load(
                Map.of(),
                Map.of("LLM_BASE_URL", "http://127.0.0.1:9/v1", "LLM_MODEL", "m", "LLM_API_KEY", "k"),
                Map.of());
        assertEquals("http://127.0.0.1:9/v1", config.get(AppConfig.LLM_BASE_URL));
        assertEquals("m", config.get(AppConfig.LLM_MODEL));
        assertEquals("k", config.get(AppConfig.LLM_API_KEY));
    }

    @Test
    void everyOptionIsReadFromItsEnvironmentVariable() {
        AppConfig config = AppConfig.load(
                Map.of(),
                Map.of(
                        "REME_TOPIC_PARTITIONS", "3",
                        "REME_TOOL_RESULT_RETENTION", "2h",
                        "REME_HTTP_ADVERTISED_HOST", "node-1",
                        "REME_STREAMS_PROCESSING_GUARANTEE", "at_least_once"),
                Map.of());

        assertEquals(3, config.get(AppConfig.PARTITIONS));
        assertEquals(Duration.ofHours(2), config.get(AppConfig.TOOL_RETENTION));
        assertEquals("node-1", config.get(AppConfig.ADVERTISED_HOST));
        assertEquals("at_least_once", config.get(AppConfig.PROCESSING_GUARANTEE));
    }

    @Test
    void propertyNamesInTheEnvironmentAreNotOptions() {
        AppConfig config = AppConfig.load(Map.of(), Map.of(MAX_INPUT, "50000"), Map.of());
        assertEquals(131072, config.get(AppConfig.MAX_INPUT_LENGTH));
    }

    @Test
    void optionBeatsEnvironmentBeatsFileBeatsDefault() {
        Map<String, String> file = Map.of(MAX_INPUT, "50000");
        Map<String, String> env = Map.of(MAX_INPUT_ENV, "60000");
        Map<String, String> option = Map.of(MAX_INPUT, "70000");

        assertEquals(70000, AppConfig.load(file, env, option).get(AppConfig.MAX_INPUT_LENGTH));
        assertEquals(60000, AppConfig.load(file, env, Map.of()).get(AppConfig.MAX_INPUT_LENGTH));
        assertEquals(50000, AppConfig.load(file, Map.of(), Map.of()).get(AppConfig.MAX_INPUT_LENGTH));
        assertEquals(131072, AppConfig.load(Map.of(), Map.of(), Map.of()).get(AppConfig.MAX_INPUT_LENGTH));
        // The policy is built from the winning value.
        assertEquals(70000, AppConfig.load(file, env, option).contextPolicy().maxInputLength());
    }

    @Test
    void aGoodOptionHidesABadValueBelowIt() {
        AppConfig config =
                AppConfig.load(Map.of(MAX_INPUT, "junk"), Map.of(MAX_INPUT_ENV, "junk"), Map.of(MAX_INPUT, "70000"));
        assertEquals(70000, config.get(AppConfig.MAX_INPUT_LENGTH));
    }

    @Test
    void aBadValueNamesItsOptionAndSource() {
        String fromEnv = problemOf(
                rejected(Map.of(), Map.of("REME_TOPIC_PARTITIONS", "many"), Map.of()), "reme.topic.partitions");
        assertTrue(fromEnv.contains("REME_TOPIC_PARTITIONS"), fromEnv);
        assertTrue(fromEnv.contains("'many'"), fromEnv);

        String fromFile =
                problemOf(rejected(Map.of("reme.topic.partitions", "0"), Map.of(), Map.of()), "reme.topic.partitions");
        assertTrue(fromFile.contains("config file"), fromFile);
        assertTrue(fromFile.contains("between 1 and 10000"), fromFile);

        String fromOption = problemOf(
                rejected(Map.of(), Map.of(), Map.of("reme.topic.partitions", "10001")), "reme.topic.partitions");
        assertTrue(fromOption.contains("option"), fromOption);
    }

    @Test
    void anOptionThatNoFieldReadsIsRefusedNotDropped() {
        String problem = problemOf(rejected(Map.of(), Map.of(), Map.of("kafka.linger.ms", "20")), "kafka.linger.ms");
        assertTrue(problem.contains("(option): unknown option"), problem);
        problemOf(rejected(Map.of(), Map.of(), Map.of("reme.topic.partition", "6")), "reme.topic.partition");
    }

    @Test
    void aReMeVariableThatNoFieldReadsIsRefusedNotDropped() {
        String problem = problemOf(
                rejected(Map.of(), Map.of("REME_LLM_BASE_URL", "http://127.0.0.1:1/v1"), Map.of()),
                "REME_LLM_BASE_URL");
        assertTrue(problem.contains("(environment): unknown variable"), problem);
        // Other variables of the process are none of the configuration's business.
        AppConfig.load(Map.of(), Map.of("LLM_BASE_URL", "http://127.0.0.1:1/v1", "HOME", "/root"), Map.of());
    }

    @Test
    void everyBadValueIsReportedAtOnce() {
        ConfigException e = rejected(
                Map.of("reme.zone", "Mars/Olympus_Mons", "reme.unknown-thing", "1"),
                Map.of("REME_HTTP_PORT", "65536", "REME_TOOL_RESULT_RETENTION", "soon"),
                Map.of(
                        "reme.topic.partitions",
                        "0",
                        "reme.context.compact-ratio",
                        "1.5",
                        "reme.streams.processing-guarantee",
                        "exactly_once",
                        "reme.tokens.encoding",
                        "gpt2"));

        assertEquals(8, e.problems().size(), e.problems()::toString);
        for (String option : List.of(
                "reme.zone",
                "reme.unknown-thing",
                "reme.http.port",
                "reme.tool-result.retention",
                "reme.topic.partitions",
                "reme.context.compact-ratio",
                "reme.streams.processing-guarantee",
                "reme.tokens.encoding")) {
            problemOf(e, option);
        }
    }

    @Test
    void inconsistentContextOptionsAreRejected() {
        // floor(20000 x 0.7 x 0.95) = 13300 does not exceed the default reserve of 10000 + 5000 reserved.
        ConfigException e =
                rejected(Map.of(), Map.of(), Map.of(MAX_INPUT, "20000", "reme.context.reserved-tokens", "5000"));
        assertTrue(e.problems().get(0).startsWith("reme.context"), e.problems()::toString);
    }

    @Test
    void theRocksDbWriteBuffersMustFitInsideItsMemory() {
        AppConfig defaults = AppConfig.of(Map.of());
        assertEquals(512, defaults.get(AppConfig.ROCKSDB_MEMORY_MB));
        assertEquals(128, defaults.get(AppConfig.ROCKSDB_WRITE_BUFFER_MB));

        ConfigException e = rejected(
                Map.of(), Map.of("REME_ROCKSDB_MEMORY_MB", "64"), Map.of("reme.rocksdb.write-buffer-mb", "64"));
        assertTrue(
                problemOf(e, "reme.rocksdb.write-buffer-mb").contains("less than reme.rocksdb.memory-mb"),
                e.problems()::toString);
        problemOf(rejected(Map.of(), Map.of(), Map.of("reme.rocksdb.memory-mb", "8")), "reme.rocksdb.memory-mb");
    }

    @Test
    void aWindowWithoutRoomForASummaryIsRejected() {
        // floor(1000 x 0.7 x 0.95) = 665; (665 - 500) / 2 = 82 tokens of summary: too few for one.
        ConfigException e = rejected(Map.of(), Map.of(), Map.of(MAX_INPUT, "1000", "reme.context.reserve", "500"));
        assertTrue(e.problems().get(0).startsWith("reme.context"), e.problems()::toString);
        assertTrue(e.problems().get(0).contains("summary budget"), e.problems()::toString);
        // A tenant's window is held to the same rule.
        ConfigException tenant = rejected(
                Map.of("reme.tenant.acme.context.max-input-length", "1000", "reme.tenant.acme.context.reserve", "500"),
                Map.of(),
                Map.of());
        assertTrue(
                problemOf(tenant, "reme.tenant.acme.context").contains("summary budget"), tenant.problems()::toString);
    }

    @Test
    void theWindowLimitsAreReadAndGoToEveryTenantsPolicy() {
        AppConfig config = AppConfig.load(
                Map.of("reme.tenant.acme.context.reserve", "2000"),
                Map.of("REME_CONTEXT_ORPHAN_CALL_TURNS", "4"),
                Map.of("reme.context.orphan-call-tokens", "900", "reme.compaction.max-span-share", "0.25"));
        for (ContextPolicy policy :
                List.of(config.contextPolicy(), config.tenantPolicies().get("acme"))) {
            assertEquals(4, policy.orphanCallTurns());
            assertEquals(900, policy.orphanCallTokens());
            assertEquals(0.25, policy.maxSpanShare());
        }
        assertEquals(2000, config.tenantPolicies().get("acme").reserve());
        assertTrue(problemOf(
                        rejected(Map.of(), Map.of(), Map.of("reme.compaction.max-span-share", "0")),
                        "reme.compaction.max-span-share")
                .contains("(0, 1]"));
        assertTrue(problemOf(
                                rejected(Map.of(), Map.of(), Map.of("reme.context.orphan-call-turns", "0")),
                                "reme.context.orphan-call-turns")
                        .length()
                > 0);
    }

    @Test
    void theOpenAiEmbeddingProviderNeedsAModelItsDimensionsAndAKey() {
        ConfigException e = rejected(Map.of(), Map.of("REME_EMBEDDING_PROVIDER", "openai"), Map.of());
        assertTrue(problemOf(e, "reme.embedding.model").contains("required"), e.problems()::toString);
        assertTrue(problemOf(e, "reme.embedding.dimensions").contains("required"), e.problems()::toString);
        assertTrue(problemOf(e, "reme.embedding.api-key").contains("reme.llm.api-key"), e.problems()::toString);

        AppConfig config = AppConfig.load(
                Map.of(),
                Map.of(
                        "REME_EMBEDDING_PROVIDER",
                        "openai",
                        "REME_EMBEDDING_MODEL",
                        "text-embedding-3-small",
                        "REME_EMBEDDING_DIMENSIONS",
                        "512",
                        "LLM_API_KEY",
                        "k"),
                Map.of());
        assertEquals("text-embedding-3-small", config.get(AppConfig.EMBEDDING_MODEL));
        assertEquals(512, config.get(AppConfig.EMBEDDING_DIMENSIONS));
    }

    @Test
    void theWorkersSearchUrlIsAUrlAndNeedsTheTenantsKeys() {
        ConfigException bad = rejected(
                Map.of(),
                Map.of("REME_WORKERS_SEARCH_URL", "reme:8080", "REME_API_KEYS", "acme:acme-key-0123456789abcdef"),
                Map.of());
        assertTrue(problemOf(bad, "reme.workers.search-url").contains("http://"), bad.problems()::toString);
        ConfigException keyless = rejected(Map.of(), Map.of("REME_WORKERS_SEARCH_URL", "http://reme:8080"), Map.of());
        assertTrue(
                problemOf(keyless, "reme.workers.search-url").contains("reme.api.keys"), keyless.problems()::toString);
        assertEquals(
                "http://reme:8080",
                AppConfig.load(
                                Map.of(),
                                Map.of(
                                        "REME_WORKERS_SEARCH_URL",
                                        "http://reme:8080",
                                        "REME_API_KEYS",
                                        "acme:acme-key-0123456789abcdef"),
                                Map.of())
                        .get(AppConfig.WORKERS_SEARCH_URL));
    }

    @Test
    void theLocalEmbeddingModelIsOneOfThoseShipped() {
        assertEquals("bge-small-en-v1.5-q", AppConfig.of(Map.of()).get(AppConfig.EMBEDDING_LOCAL_MODEL));
        ConfigException e = rejected(Map.of(), Map.of("REME_EMBEDDING_LOCAL_MODEL", "bert-huge"), Map.of());
        assertTrue(problemOf(e, "reme.embedding.local-model").contains("all-minilm-l6-v2-q"), e.problems()::toString);
        for (String name : List.of("bge-small-en-v1.5-q", "all-minilm-l6-v2-q")) {
            assertEquals(
                    name,
                    io.reme.embedding.LocalOnnxEmbeddingModel.Variant.named(name)
                            .modelName());
        }
    }

    @Test
    void inconsistentToolResultLimitsAreRejected() {
        ConfigException e = rejected(
                Map.of(),
                Map.of(),
                Map.of("reme.tool-result.recent-bytes", "100", "reme.tool-result.old-bytes", "1000"));
        assertTrue(e.problems().get(0).startsWith("reme.tool-result"), e.problems()::toString);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "reme.contxt.reserve",
                "reme.http.prt",
                "reme.tenant.acme.context.bogus",
                "reme.tenant.acme.reserve",
                "reme.tenant..context.reserve"
            })
    void unknownRemeKeysInTheFileAreRejected(String key) {
        ConfigException e = rejected(Map.of(key, "5"), Map.of(), Map.of());
        assertTrue(problemOf(e, key).contains("unknown"), e::getMessage);
    }

    @Test
    void keysOutsideRemeAndKafkaAreIgnored() {
        AppConfig config = AppConfig.load(Map.of("log.level", "debug"), Map.of(), Map.of());
        assertTrue(config.kafkaOverrides().isEmpty());
    }

    @Test
    void tenantOverridesApplyToThatTenantOnly() {
        AppConfig config = AppConfig.load(
                Map.of(
                        "reme.tenant.acme.context.reserve",
                        "20000",
                        "reme.tenant.acme.context.compact-ratio",
                        "0.5",
                        MAX_INPUT,
                        "200000"),
                Map.of(),
                Map.of());

        assertEquals(Set.of("acme"), config.tenantPolicies().keySet());
        // Options the tenant does not override come from the (configured) defaults.
        ContextPolicy acme = new ContextPolicy(200000, 0.5, 20000, 0);
        assertEquals(acme, config.tenantPolicies().get("acme"));
        assertEquals(acme, config.sessionSettings().policyFor("acme"));
        ContextPolicy others = new ContextPolicy(200000, 0.7, 10000, 0);
        assertEquals(others, config.contextPolicy());
        assertEquals(others, config.sessionSettings().policyFor("globex"));
    }

    @Test
    void severalTenantsEachGetTheirOwnPolicy() {
        AppConfig config = AppConfig.load(
                Map.of(
                        "reme.tenant.acme.context.max-input-length", "32768",
                        "reme.tenant.acme.context.reserve", "2000",
                        "reme.tenant.globex.context.reserved-tokens", "4000"),
                Map.of(),
                Map.of());

        assertEquals(
                new ContextPolicy(32768, 0.7, 2000, 0), config.sessionSettings().policyFor("acme"));
        assertEquals(
                new ContextPolicy(131072, 0.7, 10000, 4000),
                config.sessionSettings().policyFor("globex"));
        assertEquals(ContextPolicy.defaults(), config.sessionSettings().policyFor("initech"));
    }

    @Test
    void tenantOverridesAreReadOnlyFromTheFile() {
        String fromEnvironment = problemOf(
                rejected(Map.of(), Map.of("REME_TENANT_ACME_CONTEXT_RESERVE", "20000"), Map.of()),
                "REME_TENANT_ACME_CONTEXT_RESERVE");
        assertTrue(
                fromEnvironment.contains("unknown variable"),
                "as a variable it is refused, not dropped: " + fromEnvironment);
        String problem = problemOf(
                rejected(Map.of(), Map.of(), Map.of("reme.tenant.acme.context.reserve", "20000")),
                "reme.tenant.acme.context.reserve");
        assertTrue(problem.contains("unknown option"), "as an option it is refused, not dropped: " + problem);
    }

    @Test
    void anUnparsableTenantOverrideNamesTheTenantsOption() {
        ConfigException e = rejected(Map.of("reme.tenant.acme.context.reserve", "lots"), Map.of(), Map.of());
        String problem = problemOf(e, "reme.tenant.acme.context.reserve");
        assertTrue(problem.contains("'lots'"), problem);
    }

    @Test
    void anInconsistentTenantPolicyIsReported() {
        // Fine alone, but for acme floor(131072 x 0.1 x 0.95) = 12451 does not exceed a reserve of 20000.
        ConfigException e = rejected(
                Map.of("reme.tenant.acme.context.compact-ratio", "0.1", "reme.tenant.acme.context.reserve", "20000"),
                Map.of(),
                Map.of());
        String problem = problemOf(e, "reme.tenant.acme.context");
        assertTrue(problem.contains("reserve"), problem);
    }

    @Test
    void badTenantOverridesAreReportedWithTheOtherBadValues() {
        ConfigException e = rejected(
                Map.of(
                        "reme.tenant.acme.context.reserve", "lots",
                        "reme.tenant.globex.context.compact-ratio", "2"),
                Map.of(),
                Map.of("reme.topic.partitions", "0"));

        assertEquals(3, e.problems().size(), e.problems()::toString);
        problemOf(e, "reme.topic.partitions");
        problemOf(e, "reme.tenant.acme.context.reserve");
        problemOf(e, "reme.tenant.globex.context.compact-ratio");
    }

    @Test
    void kafkaKeysArePassedThroughWithoutThePrefix() {
        AppConfig config = AppConfig.load(
                Map.of(
                        "kafka.max.poll.records", "50",
                        "kafka.security.protocol", "SSL",
                        "kafka.ssl.truststore.location", "/etc/reme/truststore.jks"),
                Map.of(),
                Map.of());

        assertEquals(
                Map.of(
                        "max.poll.records",
                        "50",
                        "security.protocol",
                        "SSL",
                        "ssl.truststore.location",
                        "/etc/reme/truststore.jks"),
                config.kafkaOverrides());
    }

    @Test
    void readsAPropertiesFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("reme.properties");
        Files.writeString(file, """
                # comment
                reme.topic.partitions = 12
                reme.tenant.acme.context.reserve=20000
                kafka.linger.ms=20
                """);

        AppConfig config = AppConfig.load(AppConfig.readFile(file), Map.of(), Map.of());

        assertEquals(12, config.get(AppConfig.PARTITIONS));
        assertEquals(20000, config.sessionSettings().policyFor("acme").reserve());
        assertEquals(Map.of("linger.ms", "20"), config.kafkaOverrides());
    }

    @Test
    void aMissingFileIsAConfigProblem(@TempDir Path dir) {
        ConfigException e = assertThrows(ConfigException.class, () -> AppConfig.readFile(dir.resolve("absent")));
        assertTrue(e.problems().get(0).contains("absent"), e::getMessage);
    }

    @ParameterizedTest
    @CsvSource({
        "3d, PT72H",
        "15m, PT15M",
        "PT15M, PT15M",
        "pt15m, PT15M",
        "P1D, PT24H",
        "500ms, PT0.5S",
        "30s, PT30S",
        "3h, PT3H",
        "' 2h ', PT2H",
        "0s, PT0S",
    })
    void durationsParse(String raw, String expected) {
        assertEquals(Duration.parse(expected), AppConfig.RETRY_BACKOFF.parse(raw));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "soon",
                "15",
                "15x",
                "ms",
                "m",
                "1.5h",
                "P",
                "PT",
                "3 days",
                "-5m",
                "PT-1S",
                "-500ms",
                "9999999999999999999d"
            })
    void junkDurationsAreRejected(String raw) {
        Function<String, Duration> duration = Parsers.duration();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> duration.apply(raw));
        assertTrue(e.getMessage().contains("duration"), e::getMessage);

        ConfigException config = rejected(Map.of(), Map.of(), Map.of("reme.compaction.retry-backoff", raw));
        problemOf(config, "reme.compaction.retry-backoff");
    }

    @ParameterizedTest
    @ValueSource(strings = {"reme.compaction.pending-timeout", "reme.tool-result.retention"})
    void durationsThatMustBePositiveRejectZero(String option) {
        problemOf(rejected(Map.of(), Map.of(), Map.of(option, "0s")), option);
    }

    @Test
    void validDurationsMakeValidSessionSettings() {
        AppConfig config =
                AppConfig.of(Map.of("reme.compaction.retry-backoff", "0s", "reme.compaction.pending-timeout", "500ms"));
        assertEquals(Duration.ZERO, config.sessionSettings().compacting().retryBackoff());
        assertEquals(
                Duration.ofMillis(500), config.sessionSettings().compacting().pendingTimeout());
    }

    @Test
    void withReplacesAndRevalidates() {
        AppConfig original = AppConfig.load(
                Map.of("reme.tenant.acme.context.reserve", "20000", "kafka.linger.ms", "20"),
                Map.of(),
                Map.of("reme.topic.partitions", "4"));

        AppConfig copy = original.with(Map.of("reme.topic.partitions", "8", "reme.tool-result.retention", "1h"));
        assertEquals(8, copy.get(AppConfig.PARTITIONS));
        assertEquals(Duration.ofHours(1), copy.get(AppConfig.TOOL_RETENTION));
        assertEquals(4, original.get(AppConfig.PARTITIONS));
        // Everything not replaced survives, including values of every type and the file-only families.
        for (ConfigField<?> field : AppConfig.FIELDS) {
            if (!field.equals(AppConfig.PARTITIONS) && !field.equals(AppConfig.TOOL_RETENTION)) {
                assertEquals(original.get(field), copy.get(field), field.name());
            }
        }
        assertEquals(original.tenantPolicies(), copy.tenantPolicies());
        assertEquals(Map.of("linger.ms", "20"), copy.kafkaOverrides());

        ConfigException e = assertThrows(
                ConfigException.class,
                () -> original.with(Map.of("reme.topic.partitions", "0", "reme.zone", "nowhere")));
        assertEquals(2, e.problems().size(), e.problems()::toString);
        problemOf(e, "reme.topic.partitions");
        problemOf(e, "reme.zone");
    }

    @Test
    void withRecomputesTenantPoliciesFromTheNewDefaults() {
        AppConfig original = AppConfig.load(Map.of("reme.tenant.acme.context.reserve", "20000"), Map.of(), Map.of());

        AppConfig bigger = original.with(Map.of(MAX_INPUT, "200000"));
        assertEquals(
                new ContextPolicy(200000, 0.7, 20000, 0),
                bigger.sessionSettings().policyFor("acme"));

        // 131072 x 0.2 x 0.95 leaves 24903: fine for the default reserve, too little for acme's 20000 + 5000.
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> original.with(
                        Map.of("reme.context.compact-ratio", "0.2", "reme.context.reserved-tokens", "5000")));
        problemOf(e, "reme.tenant.acme.context");
    }
}
