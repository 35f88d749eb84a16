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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.security.auth.login.AppConfigurationEntry;
import kafka.server.KafkaConfig;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.plain.PlainLoginModule;
import org.apache.kafka.common.security.scram.ScramLoginModule;
import org.apache.kafka.connect.sink.SinkConnector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The deployment in {@code docker/} agrees with Kafka and with the application, as far as can be checked
 * without a container engine: the compose file parses; three KRaft nodes share one quorum and cluster id
 * under their own node ids; each node's command, run here with stand-ins for Kafka's scripts, writes
 * settings Kafka accepts and formats a storage (for real) with a SCRAM credential for every principal of
 * {@code acls.md}; every listener authenticates and the authorizer denies what no ACL grants; everything
 * has three replicas of which two must acknowledge; every client (instances, workers, Connect, the admin
 * tools) logs in as its own principal with that principal's password; the ACL service runs the commands
 * of {@code acls.md}; every variable given to an instance or the workers is an option of the application;
 * Prometheus scrapes every process; the connectors read the application's topics; and an instance starts
 * with exactly app1's environment (against the test broker).
 */
@Tag("integration")
class ComposeDeploymentIT extends WithBroker {
    private static final Path DOCKER = Path.of("..", "docker");
    private static final String API_KEYS = "acme:compose-key-0123456789abcdef";
    /** What an operator sets before {@code docker compose up}; everything else has a default in the file. */
    private static final Map<String, String> OPERATOR = Map.of(
            "REME_API_KEYS", API_KEYS,
            "REME_REQUEST_SECRET", "compose-request-secret-0123456789abcdef",
            "KAFKA_ADMIN_PASSWORD", "admin-password-0f1e2d",
            "KAFKA_APP_PASSWORD", "app-password-3c4b5a",
            "KAFKA_WORKERS_PASSWORD", "workers-password-6978",
            "KAFKA_CONNECT_PASSWORD", "connect-password-a1b2",
            "KAFKA_AGENTS_PASSWORD", "agents-password-c3d4");

    /** Compose's {@code $$} (a literal dollar), {@code ${NAME}}, {@code ${NAME:-default}}, {@code ${NAME:?error}}, {@code $NAME}. */
    private static final Pattern VARIABLE =
            Pattern.compile("\\$\\$|\\$\\{([A-Za-z0-9_]+)(?::?([-?])([^}]*))?}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    private static final Pattern JAVAAGENT_PORT = Pattern.compile("jmx_prometheus_javaagent\\.jar=(\\d+):");
    private static final Pattern SCRAM_USER = Pattern.compile("SCRAM-SHA-512=\\[name=([^,\\]]+),password=([^]]+)]");
    private static final String SASL_PLAINTEXT = "SASL_PLAINTEXT";
    private static final String SCRAM = "SCRAM-SHA-512";

    private static Map<String, Object> compose;
    private static Map<String, Object> services;
    private static List<String> nodes;
    private static List<String> instances;
    private static List<String> workers;
    /** Each node's command as it ran here, by service name. */
    private static Map<String, NodeStart> started;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void load() throws IOException, InterruptedException {
        // Like compose: parse first, then interpolate the string values.
        compose = (Map<String, Object>) interpolated(new Yaml(new SafeConstructor(new LoaderOptions()))
                .load(Files.readString(DOCKER.resolve("compose.yaml"))));
        services = (Map<String, Object>) compose.get("services");
        nodes = services.keySet().stream()
                .filter(name -> "kafka".equals(build(name).get("target")))
                .filter(name -> environment(name).containsKey("KAFKA_NODE_ID"))
                .toList();
        instances = appServices("run");
        workers = appServices("workers");
        assertEquals(List.of("kafka1", "kafka2", "kafka3"), nodes, "three Kafka nodes");
        assertEquals(List.of("app1", "app2"), instances, "two application instances");
        assertEquals(List.of("workers"), workers, "one separate workers service");
        started = new LinkedHashMap<>();
        for (String node : nodes) {
            started.put(node, NodeStart.run(node, dir.resolve("compose-" + node)));
        }
    }

    private static List<String> appServices(String verb) {
        return services.keySet().stream()
                .filter(name -> "app".equals(build(name).get("target")))
                .filter(name -> strings(name, "command").get(0).equals(verb))
                .toList();
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

    private static String interpolate(String text) {
        Matcher matcher = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String replacement;
            if (matcher.group().equals("$$")) {
                replacement = "$";
            } else {
                String name = matcher.group(1) != null ? matcher.group(1) : matcher.group(4);
                String value = OPERATOR.get(name);
                if (value == null && "?".equals(matcher.group(2))) {
                    throw new AssertionError(name + " is required but not in the operator's settings");
                }
                if (value == null && matcher.group(2) == null) {
                    // Compose would put an empty string here: a shell variable meant for the container is $$NAME.
                    throw new AssertionError("$" + name + " has no value and no default in " + text);
                }
                replacement = value != null ? value : matcher.group(3);
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
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

    /** The content of the top-level config the service mounts at {@code target}. */
    @SuppressWarnings("unchecked")
    private static String mountedConfig(String name, String target) {
        for (Object mount : (List<Object>) service(name).getOrDefault("configs", List.of())) {
            Map<String, Object> config = (Map<String, Object>) mount;
            if (target.equals(config.get("target"))) {
                Map<String, Object> source = (Map<String, Object>)
                        ((Map<String, Object>) compose.get("configs")).get((String) config.get("source"));
                assertTrue(source != null && source.get("content") != null, name + ": no config " + config);
                return (String) source.get("content");
            }
        }
        throw new AssertionError(name + " mounts no config at " + target);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> configMounts(String name) {
        Map<String, String> mounts = new TreeMap<>();
        for (Object mount : (List<Object>) service(name).getOrDefault("configs", List.of())) {
            String target = (String) ((Map<String, Object>) mount).get("target");
            mounts.put(target, mountedConfig(name, target));
        }
        return mounts;
    }

    private static Properties properties(String content) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(content));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return properties;
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

    /** The value after {@code option} in the service's command. */
    private static String commandOption(String service, String option) {
        List<String> command = strings(service, "command");
        int at = command.indexOf(option);
        assertTrue(at >= 0 && at + 1 < command.size(), service + " runs with " + option + ": " + command);
        return command.get(at + 1);
    }

    /** Every node's client address: a bootstrap list naming them all survives any one node being down. */
    private static void assertNamesEveryNode(String who, String bootstrap) {
        Set<String> advertised = new TreeSet<>();
        for (String node : nodes) {
            advertised.add(started.get(node)
                    .server()
                    .getProperty("advertised.listeners")
                    .replaceFirst("^\\w+://", ""));
        }
        assertEquals(
                advertised, new TreeSet<>(Arrays.asList(bootstrap.split(","))), who + " bootstraps from every node");
    }

    /** The {@code --bootstrap-servers} of an app service's command, checked against the nodes' listeners. */
    private static Map<String, String> bootstrapFromCommand(String app) {
        String bootstrap = commandOption(app, "--bootstrap-servers");
        assertNamesEveryNode(app, bootstrap);
        return Map.of(AppConfig.BOOTSTRAP_SERVERS.name(), bootstrap);
    }

    /** The instance's or workers' configuration as the container loads it, its {@code --config} file included. */
    private static AppConfig appConfig(String app) throws IOException {
        Map<String, String> file = new TreeMap<>();
        properties(mountedConfig(app, commandOption(app, "--config")))
                .forEach((key, value) -> file.put((String) key, (String) value));
        return AppConfig.load(file, containerEnvironment(app), bootstrapFromCommand(app));
    }

    /** The principals {@code acls.md} names (its table): each needs a SCRAM credential. */
    private static Set<String> aclPrincipals() throws IOException {
        Matcher matcher =
                Pattern.compile("(?m)^\\| `User:([\\w-]+)`").matcher(Files.readString(DOCKER.resolve("acls.md")));
        Set<String> principals = new TreeSet<>();
        while (matcher.find()) {
            principals.add(matcher.group(1));
        }
        return principals;
    }

    /** The SCRAM credentials every node was formatted with, by principal. */
    private static Map<String, String> scramPasswords() {
        Set<Map<String, String>> distinct =
                started.values().stream().map(NodeStart::scramPasswords).collect(Collectors.toSet());
        assertEquals(1, distinct.size(), "every node is formatted with the same credentials: " + distinct);
        return distinct.iterator().next();
    }

    /** The one login module of a JAAS setting. */
    private static AppConfigurationEntry jaas(String value) {
        List<AppConfigurationEntry> entries = JaasContext.loadClientContext(
                        Map.of(SaslConfigs.SASL_JAAS_CONFIG, new Password(value)))
                .configurationEntries();
        assertEquals(1, entries.size(), value);
        return entries.get(0);
    }

    private static String option(AppConfigurationEntry entry, String name) {
        Object value = entry.getOptions().get(name);
        assertTrue(value != null, entry.getLoginModuleName() + " has " + name);
        return value.toString();
    }

    /**
     * Checks that Kafka's client settings {@code props} log in with SCRAM over SASL on the nodes' client
     * listener as {@code principal}, with the password that principal was formatted with.
     */
    private static void assertLogsInAs(String principal, String who, Map<String, ?> props) {
        Map<String, Object> withBootstrap = new HashMap<>(props);
        withBootstrap.putIfAbsent(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka1:9092");
        AdminClientConfig config = new AdminClientConfig(withBootstrap);
        Properties server = started.get(nodes.get(0)).server();
        String listener = server.getProperty("inter.broker.listener.name");
        assertTrue(
                server.getProperty("listener.security.protocol.map").contains(listener + ":" + SASL_PLAINTEXT),
                who + ": the client listener is " + SASL_PLAINTEXT);
        assertEquals(SASL_PLAINTEXT, config.getString(AdminClientConfig.SECURITY_PROTOCOL_CONFIG), who);
        assertEquals(
                server.getProperty("listener.name." + listener.toLowerCase(Locale.ROOT) + ".sasl.enabled.mechanisms"),
                config.getString("sasl.mechanism"),
                who + " uses the mechanism the client listener offers");
        AppConfigurationEntry login =
                jaas(config.getPassword("sasl.jaas.config").value());
        assertEquals(ScramLoginModule.class.getName(), login.getLoginModuleName(), who);
        assertEquals(principal, option(login, "username"), who + " logs in as its own principal");
        assertEquals(
                scramPasswords().get(principal), option(login, "password"), who + ": " + principal + "'s password");
    }

    @Test
    void threeKraftNodesFormOneQuorumUnderTheirOwnIds() {
        Set<String> ids = new HashSet<>();
        Set<String> volumes = new HashSet<>();
        Set<String> voters = new HashSet<>();
        Set<String> clusterIds = new HashSet<>();
        for (String node : nodes) {
            Properties server = started.get(node).server();
            String id = server.getProperty("node.id");
            assertEquals(environment(node).get("KAFKA_NODE_ID"), id, node + " takes its id from its environment");
            ids.add(id);
            assertEquals("broker,controller", server.getProperty("process.roles"), node);
            voters.add(server.getProperty("controller.quorum.voters"));
            clusterIds.add(started.get(node).formatOption("--cluster-id"));
            String controllerPort =
                    server.getProperty("listeners").replaceFirst(".*CONTROLLER://[^:,]*:(\\d+).*", "$1");
            assertTrue(
                    Arrays.asList(server.getProperty("controller.quorum.voters").split(","))
                            .contains(id + "@" + service(node).get("hostname") + ":" + controllerPort),
                    node + " is a voter under its id, host name and controller port");
            String brokerPort = server.getProperty("listeners").replaceFirst(".*BROKER://[^:,]*:(\\d+).*", "$1");
            assertEquals(
                    "BROKER://" + service(node).get("hostname") + ":" + brokerPort,
                    server.getProperty("advertised.listeners"),
                    node + " advertises its own name");
            String volume = strings(node, "volumes").stream()
                    .filter(v -> v.endsWith(":" + server.getProperty("log.dirs")))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(node + " keeps its log directory in a volume"));
            volumes.add(volume);
        }
        assertEquals(nodes.size(), ids.size(), "distinct node ids");
        assertEquals(nodes.size(), volumes.size(), "a volume each");
        assertEquals(1, voters.size(), "the same static voters on every node");
        assertEquals(nodes.size(), voters.iterator().next().split(",").length, "every node votes");
        assertEquals(1, clusterIds.size(), "one cluster id");
        assertEquals(
                environment("kafka1").get("CLUSTER_ID"), clusterIds.iterator().next());
    }

    @Test
    void eachNodeStartsWithSettingsKafkaAcceptsAndFormatsACredentialForEveryPrincipal() throws IOException {
        for (String node : nodes) {
            NodeStart start = started.get(node);
            KafkaConfig config = new KafkaConfig(start.server(), false);
            assertEquals(Integer.parseInt(environment(node).get("KAFKA_NODE_ID")), config.nodeId());
            assertTrue(start.format().contains("--ignore-formatted"), node + " formats only a new volume");
            assertEquals(start.serverFile().toString(), start.formatOption("--config"), node + " formats what it runs");
            assertEquals(aclPrincipals(), start.scramPasswords().keySet(), node + ": a credential for each principal");
            assertEquals(List.of(start.serverFile().toString()), start.serverArguments(), node + " starts the server");

            // Kafka's own storage tool on the same arguments, into a directory of this test.
            Properties local = new Properties();
            local.putAll(start.server());
            local.setProperty("log.dirs", start.root().resolve("data").toString());
            Path localFile = start.root().resolve("format.properties");
            try (var out = Files.newBufferedWriter(localFile)) {
                local.store(out, null);
            }
            List<String> arguments = new ArrayList<>(start.format());
            arguments.set(arguments.indexOf("--config") + 1, localFile.toString());
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            assertEquals(
                    0,
                    StorageTool.execute(
                            arguments.toArray(String[]::new), new PrintStream(output, true, StandardCharsets.UTF_8)),
                    output.toString(StandardCharsets.UTF_8));
            assertTrue(
                    Files.readString(start.root().resolve("data").resolve("meta.properties"))
                            .contains("node.id=" + config.nodeId()),
                    node + "'s storage is formatted");
        }
    }

    @Test
    void everyListenerAuthenticatesAndNothingIsAllowedThatNoAclGrants() {
        for (String node : nodes) {
            Properties server = started.get(node).server();
            for (String listener : server.getProperty("listeners").split(",")) {
                String name = listener.substring(0, listener.indexOf("://"));
                assertTrue(
                        server.getProperty("listener.security.protocol.map").contains(name + ":" + SASL_PLAINTEXT),
                        node + ": " + name + " authenticates");
            }
            assertEquals(SCRAM, server.getProperty("listener.name.broker.sasl.enabled.mechanisms"), node);
            assertEquals(SCRAM, server.getProperty("sasl.mechanism.inter.broker.protocol"), node);
            AppConfigurationEntry broker =
                    jaas(server.getProperty("listener.name.broker.scram-sha-512.sasl.jaas.config"));
            assertEquals(ScramLoginModule.class.getName(), broker.getLoginModuleName(), node);
            assertEquals("admin", option(broker, "username"), node + ": brokers log in to each other as admin");
            assertEquals(scramPasswords().get("admin"), option(broker, "password"), node + ": with admin's credential");

            // The quorum cannot use SCRAM: its credentials are in the metadata log the controllers serve.
            assertEquals("PLAIN", server.getProperty("listener.name.controller.sasl.enabled.mechanisms"), node);
            assertEquals("PLAIN", server.getProperty("sasl.mechanism.controller.protocol"), node);
            AppConfigurationEntry quorum = jaas(server.getProperty("listener.name.controller.plain.sasl.jaas.config"));
            assertEquals(PlainLoginModule.class.getName(), quorum.getLoginModuleName(), node);
            String user = option(quorum, "username");
            assertEquals("admin", user, node + ": controllers and brokers log in to the quorum as admin");
            assertEquals(
                    option(quorum, "user_" + user), option(quorum, "password"), node + ": the quorum knows its login");

            assertEquals(
                    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                    server.getProperty("authorizer.class.name"),
                    node);
            assertEquals("User:admin", server.getProperty("super.users"), node + ": only admin is beyond the ACLs");
            assertEquals("false", server.getProperty("allow.everyone.if.no.acl.found"), node);
        }
    }

    @Test
    void everythingHasThreeReplicasOfWhichTwoMustAcknowledge() throws IOException {
        String three = Integer.toString(nodes.size());
        for (String node : nodes) {
            Properties server = started.get(node).server();
            for (String key : List.of(
                    "default.replication.factor",
                    "offsets.topic.replication.factor",
                    "transaction.state.log.replication.factor",
                    "share.coordinator.state.topic.replication.factor")) {
                assertEquals(three, server.getProperty(key), node + ": " + key);
            }
            for (String key : List.of(
                    "min.insync.replicas", "transaction.state.log.min.isr", "share.coordinator.state.topic.min.isr")) {
                assertEquals("2", server.getProperty(key), node + ": " + key + ", so one node may be down");
            }
        }
        for (String app : instances) {
            assertEquals(nodes.size(), (int) appConfig(app).get(AppConfig.REPLICATION_FACTOR), app + "'s topics");
        }
        Map<String, String> connect = environment("connect");
        for (String topic : List.of("CONFIG", "OFFSET", "STATUS")) {
            assertEquals(three, connect.get("CONNECT_" + topic + "_STORAGE_REPLICATION_FACTOR"), "Connect's " + topic);
        }
        try (DirectoryStream<Path> files =
                Files.newDirectoryStream(DOCKER.resolve("connect").resolve("connectors"), "*.json")) {
            for (Path file : files) {
                assertEquals(
                        three,
                        Json.MAPPER
                                .readTree(file.toFile())
                                .path("errors.deadletterqueue.topic.replication.factor")
                                .asText(),
                        file + "'s dead-letter topic");
            }
        }
    }

    @Test
    void everyClientLogsInAsItsOwnPrincipal() throws IOException {
        for (String app : instances) {
            assertLogsInAs("reme-app", app, RemeApp.clientProps(appConfig(app), "kafka1:9092"));
        }
        for (String process : workers) {
            assertLogsInAs("reme-workers", process, RemeApp.clientProps(appConfig(process), "kafka1:9092"));
        }

        // Connect's worker properties, as connect/start-connect.sh writes them from CONNECT_* variables.
        Map<String, String> worker = new TreeMap<>();
        environment("connect").forEach((name, value) -> {
            if (name.startsWith("CONNECT_")) {
                worker.put(
                        name.substring("CONNECT_".length())
                                .toLowerCase(Locale.ROOT)
                                .replace('_', '.'),
                        value);
            }
        });
        assertNamesEveryNode("connect", worker.get("bootstrap.servers"));
        for (String client : List.of("", "consumer.", "producer.", "admin.")) {
            Map<String, String> props = new TreeMap<>();
            for (String key : List.of("security.protocol", "sasl.mechanism", "sasl.jaas.config")) {
                props.put(key, worker.get(client + key));
            }
            assertLogsInAs("reme-connect", "connect's " + (client.isEmpty() ? "worker" : client) + " client", props);
        }

        // The admin tools: the nodes' health check and the ACL service.
        List<String> adminTools = new ArrayList<>(nodes);
        adminTools.add("kafka-acls");
        for (String service : adminTools) {
            String target = service.equals("kafka-acls")
                    ? environment(service).get("ADMIN_CONFIG")
                    : String.valueOf(service(service).get("healthcheck"))
                            .replaceFirst(".*--command-config (\\S+).*", "$1");
            Map<String, String> props = new TreeMap<>();
            properties(mountedConfig(service, target)).forEach((key, value) -> props.put((String) key, (String) value));
            assertLogsInAs("admin", service + "'s admin tools", props);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theAclServiceRunsTheCommandsOfAclsMdBeforeAnyClientStarts() throws IOException, InterruptedException {
        String acls = Files.readString(DOCKER.resolve("acls.md"));
        Matcher block = Pattern.compile("```bash\\n(.*?)```", Pattern.DOTALL).matcher(acls);
        assertTrue(block.find(), "acls.md has the commands");
        String commands =
                block.group(1).replaceFirst("^acl\\(\\) \\{[^\\n]*\\n", "").strip();
        Path script = DOCKER.resolve("kafka").resolve("apply-acls.sh");
        String applied = Files.readString(script);
        assertTrue(applied.contains(commands), "apply-acls.sh runs acls.md's commands, as written there");

        AppConfig app = appConfig("app1");
        assertTrue(applied.contains("\nP=" + app.topics().prefix() + "\n"), "the topics' prefix");
        assertTrue(applied.contains("\nAPP=" + app.get(AppConfig.APPLICATION_ID) + "\n"), "the application id");
        Map<String, String> connect = environment("connect");
        assertTrue(commands.contains("--group " + connect.get("CONNECT_GROUP_ID") + " "), "Connect's group");
        for (String topic : List.of("CONFIG", "OFFSET", "STATUS")) {
            assertTrue(connect.get("CONNECT_" + topic + "_STORAGE_TOPIC").startsWith("reme-connect-"), topic);
        }

        Map<String, String> env = environment("kafka-acls");
        assertNamesEveryNode("kafka-acls", env.get("BOOTSTRAP_SERVERS"));
        assertTrue(strings("kafka-acls", "volumes").contains("./kafka/apply-acls.sh:/etc/reme/apply-acls.sh:ro"));
        assertEquals(List.of("/bin/sh", "/etc/reme/apply-acls.sh"), strings("kafka-acls", "entrypoint"));
        Map<String, Object> after = (Map<String, Object>) service("kafka-acls").get("depends_on");
        for (String node : nodes) {
            assertEquals(Map.of("condition", "service_healthy"), after.get(node), "ACLs once " + node + " answers");
        }
        for (String client : List.of("app1", "app2", "workers", "connect")) {
            assertEquals(
                    Map.of("kafka-acls", Map.of("condition", "service_completed_successfully")),
                    service(client).get("depends_on"),
                    client + " starts once its ACLs are there");
        }

        // The script itself, with stand-ins for Kafka's tools that record what they were asked.
        Path kafkaHome = dir.resolve("compose-acls");
        Path bin = Files.createDirectories(kafkaHome.resolve("bin"));
        Path calls = kafkaHome.resolve("calls");
        StandIn.write(bin.resolve("kafka-broker-api-versions.sh"), "exit 0");
        StandIn.write(bin.resolve("kafka-acls.sh"), "echo \"$*\" >> '" + calls + "'");
        Map<String, String> scriptEnv = new HashMap<>(env);
        scriptEnv.put("KAFKA_HOME", kafkaHome.toString());
        StandIn.run(List.of("/bin/sh", script.toString()), scriptEnv);
        List<String> recorded = Files.readAllLines(calls);
        Set<String> granted = new TreeSet<>();
        for (String call : recorded) {
            assertTrue(
                    call.startsWith("--bootstrap-server " + env.get("BOOTSTRAP_SERVERS") + " --command-config "
                            + env.get("ADMIN_CONFIG") + " --add "),
                    call);
            granted.add(call.replaceFirst(".*--allow-principal User:(\\S+).*", "$1"));
        }
        Set<String> principals = new TreeSet<>(aclPrincipals());
        principals.remove("admin");
        assertEquals(principals, granted, "every principal but the super user gets its grants");
    }

    @Test
    void everyVariableGivenToAnInstanceOrTheWorkersIsAnOptionOfTheApplication() throws IOException {
        Set<String> options = new HashSet<>();
        for (ConfigField<?> field : AppConfig.FIELDS) {
            options.add(field.envName());
        }
        List<String> apps = new ArrayList<>(instances);
        apps.addAll(workers);
        for (String app : apps) {
            List<String> unknown = containerEnvironment(app).keySet().stream()
                    .filter(name -> !options.contains(name))
                    .toList();
            assertTrue(unknown.isEmpty(), app + " sets variables the application does not read: " + unknown);
            AppConfig config = appConfig(app);
            assertEquals(
                    appConfig("app1").get(AppConfig.REQUEST_SECRET),
                    config.get(AppConfig.REQUEST_SECRET),
                    app + " shares the request secret");
            assertEquals(appConfig("app1").get(AppConfig.APPLICATION_ID), config.get(AppConfig.APPLICATION_ID), app);
        }
        Set<String> advertised = new HashSet<>();
        for (String app : instances) {
            AppConfig config = appConfig(app);
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
            assertEquals(false, config.get(AppConfig.WORKERS_EMBEDDED), "the workers run in their own service");
        }
        assertEquals(instances.size(), advertised.size(), "each instance is advertised under its own name");
        for (String process : workers) {
            AppConfig config = appConfig(process);
            String searchUrl = config.get(AppConfig.WORKERS_SEARCH_URL);
            assertTrue(
                    instances.stream()
                            .anyMatch(app -> searchUrl.equals(
                                    "http://" + app + ":" + environment(app).get("REME_HTTP_PORT"))),
                    process + " finds existing memories through an instance's search: " + searchUrl);
        }
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
        List<String> apps = new ArrayList<>(instances);
        apps.addAll(workers);
        for (String app : apps) {
            expected.add(app + ":" + environment(app).get("REME_HTTP_PORT"));
        }
        for (String node : nodes) {
            Matcher port = JAVAAGENT_PORT.matcher(started.get(node).kafkaOpts());
            assertTrue(port.find(), node + "'s server runs the Prometheus JMX exporter agent");
            expected.add(node + ":" + port.group(1));
        }
        Matcher port = JAVAAGENT_PORT.matcher(environment("connect").getOrDefault("KAFKA_OPTS", ""));
        assertTrue(port.find(), "connect runs the Prometheus JMX exporter agent");
        expected.add("connect:" + port.group(1));
        for (String target : expected) {
            assertEquals("/metrics", targets.get(target), "Prometheus scrapes " + target + ": " + targets);
        }
        assertEquals(new HashSet<>(expected), targets.keySet(), "and nothing that does not exist");
        assertTrue(service("prometheus")
                .toString()
                .contains("./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml"));
        // The alert rules it loads are in the container, from the file promtool tests.
        for (Object ruleFile : (List<Object>) config.get("rule_files")) {
            String name = Path.of(String.valueOf(ruleFile)).getFileName().toString();
            assertTrue(Files.exists(DOCKER.resolve("prometheus").resolve(name)), name);
            assertTrue(
                    strings("prometheus", "volumes").contains("./prometheus/" + name + ":" + ruleFile + ":ro"),
                    ruleFile + " is mounted");
        }
    }

    @Test
    void theConnectorsReadTheApplicationsTopicsAndWriteTheSharedWorkingDirectory() throws Exception {
        AppConfig app = appConfig("app1");
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
                dockerfile.contains("application/target/reme-streams-app.jar " + pluginPath + "/"),
                "the connect image puts the application jar under the plugin path " + pluginPath);
        assertTrue(Files.isExecutable(DOCKER.resolve("connect").resolve("start-connect.sh")));
    }

    @Test
    void anInstanceStartsWithExactlyTheComposeEnvironment() throws Exception {
        Map<String, String> env = containerEnvironment("app1");
        // Only what the test machine has to differ in: its broker, fresh directories, a free port, and one
        // replica, as the test broker is a single node. Its --config file is left out: the test broker speaks
        // PLAINTEXT, and the file's SASL settings are checked against the nodes' above.
        Map<String, String> here = Map.of(
                AppConfig.BOOTSTRAP_SERVERS.name(), broker.bootstrapServers(),
                AppConfig.DATA_DIR.name(), dir.resolve("compose-app1").toString(),
                AppConfig.WORKSPACE_DIR.name(), dir.resolve("compose-workspace").toString(),
                AppConfig.HTTP_PORT.name(), "0",
                AppConfig.REPLICATION_FACTOR.name(), "1");
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

    /**
     * A node's command as it ran here: the container's {@code /opt/kafka} and {@code /etc/reme} moved under
     * {@code root}, its configs written there, and stand-ins for Kafka's scripts that record their arguments.
     *
     * @param server the settings the command wrote, which the server starts with
     * @param format the storage tool's arguments
     * @param serverArguments the server start script's arguments
     * @param kafkaOpts the server's {@code KAFKA_OPTS}
     */
    private record NodeStart(
            Path root,
            Path serverFile,
            Properties server,
            List<String> format,
            List<String> serverArguments,
            String kafkaOpts) {

        static NodeStart run(String node, Path root) throws IOException, InterruptedException {
            List<String> command = strings(node, "command");
            assertEquals(List.of("/bin/sh", "-c"), command.subList(0, 2), node + " runs a shell script");
            Path bin = Files.createDirectories(root.resolve("opt/kafka/bin"));
            Files.createDirectories(root.resolve("opt/kafka/config"));
            for (Map.Entry<String, String> mount : configMounts(node).entrySet()) {
                Path file = root.resolve(mount.getKey().substring(1));
                Files.createDirectories(file.getParent());
                Files.writeString(file, mount.getValue());
            }
            StandIn.write(bin.resolve("kafka-storage.sh"), "printf '%s\\n' \"$@\" > '" + root.resolve("format") + "'");
            StandIn.write(
                    bin.resolve("kafka-server-start.sh"),
                    "printf '%s\\n' \"$@\" > '" + root.resolve("start") + "'\nprintf '%s' \"$KAFKA_OPTS\" > '"
                            + root.resolve("opts") + "'");
            String script = command.get(2)
                    .replace("/opt/kafka/", root + "/opt/kafka/")
                    .replace("/etc/reme/", root + "/etc/reme/");
            StandIn.run(List.of("/bin/sh", "-c", script), environment(node));
            Path serverFile = root.resolve("opt/kafka/config/server.properties");
            return new NodeStart(
                    root,
                    serverFile,
                    properties(Files.readString(serverFile)),
                    Files.readAllLines(root.resolve("format")),
                    Files.readAllLines(root.resolve("start")),
                    Files.readString(root.resolve("opts")));
        }

        String formatOption(String name) {
            int at = format.indexOf(name);
            assertTrue(at >= 0, "the storage is formatted with " + name + ": " + format);
            return format.get(at + 1);
        }

        Map<String, String> scramPasswords() {
            Map<String, String> passwords = new TreeMap<>();
            for (int i = 0; i < format.size() - 1; i++) {
                if (format.get(i).equals("--add-scram")) {
                    Matcher user = SCRAM_USER.matcher(format.get(i + 1));
                    assertTrue(user.matches(), format.get(i + 1));
                    passwords.put(user.group(1), user.group(2));
                }
            }
            return passwords;
        }
    }

    /** Shell scripts standing in for the container's tools, and running a script with a given environment. */
    private static final class StandIn {
        private StandIn() {}

        static void write(Path file, String body) throws IOException {
            Files.writeString(file, "#!/bin/sh\n" + body + "\n");
            assertTrue(file.toFile().setExecutable(true), "executable " + file);
        }

        static void run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
            ProcessBuilder process = new ProcessBuilder(command).redirectErrorStream(true);
            process.environment().clear();
            process.environment().put("PATH", System.getenv("PATH"));
            process.environment().putAll(env);
            Process running = process.start();
            String output = new String(running.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, running.waitFor(), command + ": " + output);
        }
    }
}
