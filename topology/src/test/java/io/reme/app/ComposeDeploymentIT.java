package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.admin.TopicProvisioner;
import io.reme.config.AppConfig;
import io.reme.config.ConfigField;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.sink.SinkConnector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The deployment in {@code docker/} agrees with the application, as far as can be checked without a
 * container engine: the compose file parses, every variable given to an instance is an option of the
 * application, the instances form one Streams app reachable under their own names, Prometheus scrapes
 * every process on the port it serves metrics on, the connectors read the application's topics, and
 * an instance starts with exactly the compose environment (against the test broker).
 */
class ComposeDeploymentIT extends WithBroker {
    private static final Path DOCKER = Path.of("..", "docker");
    private static final String API_KEYS = "acme:compose-key-0123456789abcdef";
    /** What an operator sets before {@code docker compose up}; everything else has a default in the file. */
    private static final Map<String, String> OPERATOR =
            Map.of("REME_API_KEYS", API_KEYS, "REME_REQUEST_SECRET", "compose-request-secret-0123456789abcdef");

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9_]+)(?::?([-?])([^}]*))?}");
    private static final Pattern JAVAAGENT_PORT = Pattern.compile("jmx_prometheus_javaagent\\.jar=(\\d+):");

    private static Map<String, Object> services;
    private static List<String> appServices;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void load() throws IOException {
        // Like compose: parse first, then interpolate the string values.
        Map<String, Object> compose =
                (Map<String, Object>) interpolated(new Yaml(new SafeConstructor(new LoaderOptions()))
                        .load(Files.readString(DOCKER.resolve("compose.yaml"))));
        services = (Map<String, Object>) compose.get("services");
        appServices = services.keySet().stream()
                .filter(name -> "app".equals(build(name).get("target")))
                .toList();
        assertEquals(List.of("app1", "app2"), appServices, "two application instances");
    }

    private static Object interpolated(Object node) {
        if (node instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((key, value) -> out.put(key, interpolated(value)));
            return out;
        }
        if (node instanceof List<?> list) {
            return list.stream().map(ComposeDeploymentIT::interpolated).toList();
        }
        return node instanceof String text ? interpolate(text) : node;
    }

    /** Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}, with the operator's settings. */
    private static String interpolate(String text) {
        Matcher matcher = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = OPERATOR.get(matcher.group(1));
            if (value == null && "?".equals(matcher.group(2))) {
                throw new AssertionError(matcher.group(1) + " is required but not in the operator's settings");
            }
            matcher.appendReplacement(
                    out,
                    Matcher.quoteReplacement(value != null ? value : matcher.group(3) == null ? "" : matcher.group(3)));
        }
        return matcher.appendTail(out).toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(String name) {
        Map<String, Object> service = (Map<String, Object>) services.get(name);
        assertTrue(service != null, "no service " + name);
        return service;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> build(String name) {
        Object build = service(name).get("build");
        return build instanceof Map ? (Map<String, Object>) build : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> environment(String name) {
        Map<String, String> env = new TreeMap<>();
        ((Map<String, Object>) service(name).getOrDefault("environment", Map.of()))
                .forEach((key, value) -> env.put(key, String.valueOf(value)));
        return env;
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(String name, String key) {
        return ((List<Object>) service(name).getOrDefault(key, List.of()))
                .stream().map(String::valueOf).toList();
    }

    /** The app image's ENV lines, as the container sees them before compose adds its own. */
    private static Map<String, String> imageEnvironment() throws IOException {
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile"));
        String app = dockerfile.substring(dockerfile.indexOf(" AS app"));
        Map<String, String> env = new TreeMap<>();
        Matcher matcher = Pattern.compile("(?m)^ENV (\\w+)=(\\S+)$").matcher(app);
        while (matcher.find()) {
            env.put(matcher.group(1), matcher.group(2));
        }
        return env;
    }

    /** The container's environment: the image's, then the compose file's. */
    private static Map<String, String> containerEnvironment(String service) throws IOException {
        Map<String, String> env = new TreeMap<>(imageEnvironment());
        env.putAll(environment(service));
        return env;
    }

    @Test
    void everyVariableGivenToAnInstanceIsAnOptionOfTheApplication() throws IOException {
        Set<String> options = new HashSet<>();
        for (ConfigField<?> field : AppConfig.FIELDS) {
            options.add(field.envName());
        }
        Set<String> advertised = new HashSet<>();
        for (String app : appServices) {
            Map<String, String> env = containerEnvironment(app);
            List<String> unknown = env.keySet().stream()
                    .filter(name -> !options.contains(name))
                    .toList();
            assertTrue(unknown.isEmpty(), app + " sets variables the application does not read: " + unknown);
            AppConfig config = AppConfig.load(Map.of(), env, bootstrapFromCommand(app));
            assertEquals(app, config.get(AppConfig.ADVERTISED_HOST), "other instances reach " + app + " by its name");
            assertEquals(app, service(app).get("hostname"));
            advertised.add(config.get(AppConfig.ADVERTISED_HOST));
            assertEquals(
                    config.get(AppConfig.HTTP_PORT) + "",
                    strings(app, "ports").get(0).split(":")[1],
                    app + " publishes the API port");
            assertTrue(
                    strings(app, "volumes").contains("workspace:" + config.get(AppConfig.WORKSPACE_DIR)),
                    app + " has the shared working directory volume where it watches for hand edits");
            assertEquals("false", config.get(AppConfig.SINKS_EMBEDDED), "the sinks run in the Connect worker");
        }
        assertEquals(appServices.size(), advertised.size(), "each instance is advertised under its own name");
        assertEquals(
                1,
                appServices.stream()
                        .map(app -> environment(app).get("REME_APPLICATION_ID"))
                        .distinct()
                        .count(),
                "all instances are one Streams application");
    }

    /** The {@code --bootstrap-servers} of the instance's command, checked against Kafka's advertised listener. */
    private static Map<String, String> bootstrapFromCommand(String app) {
        List<String> command = strings(app, "command");
        int option = command.indexOf("--bootstrap-servers");
        assertTrue(option >= 0 && command.get(0).equals("run"), app + " runs with --bootstrap-servers: " + command);
        String bootstrap = command.get(option + 1);
        assertTrue(
                environment("kafka").get("KAFKA_ADVERTISED_LISTENERS").contains("://" + bootstrap),
                bootstrap + " is a listener Kafka advertises");
        return Map.of(AppConfig.BOOTSTRAP_SERVERS.name(), bootstrap);
    }

    @Test
    @SuppressWarnings("unchecked")
    void prometheusScrapesEveryProcessWhereItServesMetrics() throws IOException {
        Map<String, Object> config = new Yaml(new SafeConstructor(new LoaderOptions()))
                .load(Files.readString(DOCKER.resolve("prometheus").resolve("prometheus.yml")));
        Map<String, String> targets = new HashMap<>();
        for (Map<String, Object> job : (List<Map<String, Object>>) config.get("scrape_configs")) {
            String path = (String) job.getOrDefault("metrics_path", "/metrics");
            for (Map<String, Object> group : (List<Map<String, Object>>) job.get("static_configs")) {
                for (Object target : (List<Object>) group.get("targets")) {
                    targets.put(String.valueOf(target), path);
                }
            }
        }
        List<String> expected = new ArrayList<>();
        for (String app : appServices) {
            expected.add(app + ":" + environment(app).get("REME_HTTP_PORT"));
        }
        for (String jvm : List.of("kafka", "connect")) {
            Matcher port = JAVAAGENT_PORT.matcher(environment(jvm).getOrDefault("KAFKA_OPTS", ""));
            assertTrue(port.find(), jvm + " runs the Prometheus JMX exporter agent");
            expected.add(jvm + ":" + port.group(1));
        }
        for (String target : expected) {
            assertEquals("/metrics", targets.get(target), "Prometheus scrapes " + target + ": " + targets);
        }
        assertEquals(new HashSet<>(expected), targets.keySet(), "and nothing that does not exist");
        assertTrue(service("prometheus")
                .toString()
                .contains("./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml"));
    }

    @Test
    void theConnectorsReadTheApplicationsTopicsAndWriteTheSharedWorkingDirectory() throws Exception {
        AppConfig app = AppConfig.load(Map.of(), containerEnvironment("app1"), bootstrapFromCommand("app1"));
        Topics topics = app.topics();
        String workspace = strings("connect", "volumes").stream()
                .filter(v -> v.startsWith("workspace:"))
                .map(v -> v.substring("workspace:".length()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("connect mounts the workspace volume"));
        Set<String> read = new HashSet<>();
        try (DirectoryStream<Path> files =
                Files.newDirectoryStream(DOCKER.resolve("connect").resolve("connectors"), "*.json")) {
            for (Path file : files) {
                JsonNode connector = Json.MAPPER.readTree(file.toFile());
                read.add(connector.path("topics").asText());
                assertEquals(workspace, connector.path("workspace.dir").asText(), file + " writes the shared volume");
                assertEquals(
                        topics.dlq(),
                        connector.path("errors.deadletterqueue.topic.name").asText(),
                        file.toString());
                Class<?> type = Class.forName(connector.path("connector.class").asText());
                assertTrue(SinkConnector.class.isAssignableFrom(type), file + " names one of our sink connectors");
                SinkConnector sink =
                        (SinkConnector) type.getDeclaredConstructor().newInstance();
                for (ConfigDef.ConfigKey key : sink.config().configKeys().values()) {
                    assertTrue(key.hasDefault() || connector.has(key.name), file + " sets " + key.name);
                }
                // The request secret comes from the worker's environment through its config provider.
                Matcher fromEnv = Pattern.compile("\\$\\{env:(\\w+)}")
                        .matcher(connector.path("request.secret").asText());
                if (fromEnv.matches()) {
                    assertTrue(environment("connect").containsKey(fromEnv.group(1)), file + ": " + fromEnv.group(1));
                    assertEquals("env", environment("connect").get("CONNECT_CONFIG_PROVIDERS"));
                }
            }
        }
        assertEquals(Set.of(topics.dialog(), topics.diary(), topics.toolResults()), read);
        assertEquals(app.get(AppConfig.WORKSPACE_DIR), workspace, "the sinks write where the instances watch");
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile"));
        String pluginPath = environment("connect").get("CONNECT_PLUGIN_PATH");
        assertTrue(
                dockerfile.contains("reme-streams.jar " + pluginPath + "/"),
                "the connect image puts the application jar under the plugin path " + pluginPath);
        assertTrue(Files.isExecutable(DOCKER.resolve("connect").resolve("start-connect.sh")));
    }

    @Test
    void anInstanceStartsWithExactlyTheComposeEnvironment() throws Exception {
        Map<String, String> env = containerEnvironment("app1");
        // Only what the test machine has to differ in: its broker, fresh directories, a free port.
        Map<String, String> here = Map.of(
                AppConfig.BOOTSTRAP_SERVERS.name(), broker.bootstrapServers(),
                AppConfig.DATA_DIR.name(), dir.resolve("compose-app1").toString(),
                AppConfig.WORKSPACE_DIR.name(), dir.resolve("compose-workspace").toString(),
                AppConfig.HTTP_PORT.name(), "0");
        try (RemeApp app = RemeApp.start(AppConfig.load(Map.of(), env, here))) {
            String base = "http://127.0.0.1:" + app.httpPort();
            ApiClient.Response ready = ApiClient.get(base + "/health/ready", null);
            assertEquals(200, ready.status(), ready.text());
            ApiClient.Response posted = ApiClient.post(
                    base + "/v1/messages",
                    API_KEYS.substring(API_KEYS.indexOf(':') + 1),
                    "{\"session\":\"s1\",\"user\":\"alice\",\"role\":\"user\",\"content\":\"hello\"}");
            assertEquals(202, posted.status(), "the operator's key works: " + posted.text());
            ApiClient.Response metrics = ApiClient.get(base + "/metrics", null);
            assertEquals(200, metrics.status());
            assertTrue(metrics.text().contains("reme_messages_in_total"), "the metrics Prometheus scrapes");
            try (Admin admin = Admin.create(RemeApp.clientProps(app.config(), broker.bootstrapServers()))) {
                assertEquals(
                        Integer.parseInt(env.get("REME_TOPIC_PARTITIONS")),
                        TopicProvisioner.partitions(admin, app.config().topics().messages()),
                        "the topics were created with the compose partition count");
            }
            assertNotEquals("127.0.0.1", app.config().get(AppConfig.HTTP_HOST), "listens on every interface");
        }
    }
}
