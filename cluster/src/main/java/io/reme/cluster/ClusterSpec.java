package io.reme.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.Uuid;

/**
 * What a cluster is, fixed at its first start and kept in {@code <dir>/cluster.properties} (mode 600: it
 * holds every password): its Kafka cluster id, every port (a restarted node must come back where the
 * quorum and the clients expect it), the SASL passwords of each principal, the application's request
 * secret and the API key of each tenant. Later commands on the same directory read it back.
 *
 * @param brokerPorts the SASL/SCRAM client and inter-broker listener of node {@code i + 1}
 * @param controllerPorts the SASL/PLAIN controller listener of node {@code i + 1}
 * @param appPorts the HTTP API of app instance {@code i + 1}
 */
public record ClusterSpec(
        Path dir,
        String clusterId,
        List<Integer> brokerPorts,
        List<Integer> controllerPorts,
        int connectPort,
        List<Integer> appPorts,
        int workersPort,
        Properties passwords,
        String requestSecret,
        Map<String, String> apiKeys) {

    /** The principals of {@code docker/acls.md}, each with its own SCRAM password. */
    public static final List<String> PRINCIPALS =
            List.of("admin", "reme-app", "reme-workers", "reme-connect", "agents");

    public static final String FILE = "cluster.properties";
    public static final String HOST = "127.0.0.1";
    /** The tenants a new cluster serves, each with its own API key. */
    public static final List<String> TENANTS = List.of("acme", "globex", "initech");

    public ClusterSpec {
        dir = dir.toAbsolutePath().normalize();
        brokerPorts = List.copyOf(brokerPorts);
        controllerPorts = List.copyOf(controllerPorts);
        appPorts = List.copyOf(appPorts);
        apiKeys = Collections.unmodifiableMap(new LinkedHashMap<>(apiKeys));
        if (brokerPorts.size() != controllerPorts.size() || brokerPorts.isEmpty()) {
            throw new IllegalArgumentException("one broker and one controller port per node");
        }
        for (String principal : PRINCIPALS) {
            if (passwords.getProperty(principal) == null) {
                throw new IllegalArgumentException("no password for " + principal);
            }
        }
    }

    /** Reads the spec of an existing cluster directory, or makes (and writes) a new one. */
    public static ClusterSpec loadOrCreate(Path dir, int nodes, int instances) {
        Path file = dir.resolve(FILE);
        if (Files.isRegularFile(file)) {
            return load(dir);
        }
        SecureRandom random = new SecureRandom();
        Properties passwords = new Properties();
        for (String principal : PRINCIPALS) {
            passwords.setProperty(principal, secret(random, 16));
        }
        Map<String, String> apiKeys = new LinkedHashMap<>();
        for (String tenant : TENANTS) {
            apiKeys.put(tenant, secret(random, 24));
        }
        List<Integer> ports = freePorts(2 * nodes + instances + 2);
        ClusterSpec spec = new ClusterSpec(
                dir,
                Uuid.randomUuid().toString(),
                ports.subList(0, nodes),
                ports.subList(nodes, 2 * nodes),
                ports.get(2 * nodes),
                ports.subList(2 * nodes + 1, 2 * nodes + 1 + instances),
                ports.get(2 * nodes + 1 + instances),
                passwords,
                secret(random, 32),
                apiKeys);
        spec.write();
        return spec;
    }

    /** Reads {@code <dir>/cluster.properties}; fails if there is none. */
    public static ClusterSpec load(Path dir) {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(dir.resolve(FILE), StandardCharsets.UTF_8)) {
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("no cluster in " + dir + " (" + FILE + ")", e);
        }
        Properties passwords = new Properties();
        for (String principal : PRINCIPALS) {
            passwords.setProperty(principal, props.getProperty("password." + principal));
        }
        return new ClusterSpec(
                dir,
                props.getProperty("cluster.id"),
                ports(props.getProperty("broker.ports")),
                ports(props.getProperty("controller.ports")),
                Integer.parseInt(props.getProperty("connect.port")),
                ports(props.getProperty("app.ports")),
                Integer.parseInt(props.getProperty("workers.port")),
                passwords,
                props.getProperty("request.secret"),
                apiKeys(props.getProperty("api.keys")));
    }

    private void write() {
        Properties props = new Properties();
        props.setProperty("cluster.id", clusterId);
        props.setProperty("broker.ports", join(brokerPorts));
        props.setProperty("controller.ports", join(controllerPorts));
        props.setProperty("connect.port", Integer.toString(connectPort));
        props.setProperty("app.ports", join(appPorts));
        props.setProperty("workers.port", Integer.toString(workersPort));
        for (String principal : PRINCIPALS) {
            props.setProperty("password." + principal, password(principal));
        }
        props.setProperty("request.secret", requestSecret);
        props.setProperty("api.keys", apiKeysOption());
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(FILE);
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                props.store(out, "A local ReMe Streams cluster: ports and secrets fixed at its first start");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + dir.resolve(FILE), e);
        }
    }

    public int nodes() {
        return brokerPorts.size();
    }

    /** The first tenant, the one a person trying the cluster uses. */
    public String tenant() {
        return apiKeys.keySet().iterator().next();
    }

    public String apiKey(String tenant) {
        String key = apiKeys.get(tenant);
        if (key == null) {
            throw new IllegalArgumentException("no such tenant: " + tenant);
        }
        return key;
    }

    /** {@code tenant:key,...}, the instances' {@code REME_API_KEYS}. */
    public String apiKeysOption() {
        List<String> pairs = new ArrayList<>();
        apiKeys.forEach((tenant, key) -> pairs.add(tenant + ":" + key));
        return String.join(",", pairs);
    }

    public String password(String principal) {
        String password = passwords.getProperty(principal);
        if (password == null) {
            throw new IllegalArgumentException("no such principal: " + principal);
        }
        return password;
    }

    /** Every broker's client listener, the bootstrap list of every client. */
    public String bootstrapServers() {
        List<String> servers = new ArrayList<>();
        for (int port : brokerPorts) {
            servers.add(HOST + ":" + port);
        }
        return String.join(",", servers);
    }

    /** The client settings that authenticate as {@code principal} (SASL/SCRAM-SHA-512). */
    public Properties clientSettings(String principal) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrapServers());
        props.setProperty("security.protocol", "SASL_PLAINTEXT");
        props.setProperty("sasl.mechanism", "SCRAM-SHA-512");
        props.setProperty("sasl.jaas.config", scramJaas(principal));
        return props;
    }

    /** The JAAS line of a SCRAM client logging in as {@code principal}. */
    public String scramJaas(String principal) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + principal
                + "\" password=\"" + password(principal) + "\";";
    }

    public String appUrl(int instance) {
        return "http://" + HOST + ":" + appPorts.get(instance - 1);
    }

    public String connectUrl() {
        return "http://" + HOST + ":" + connectPort;
    }

    private static String secret(SecureRandom random, int bytes) {
        byte[] value = new byte[bytes];
        random.nextBytes(value);
        return HexFormat.of().formatHex(value);
    }

    private static List<Integer> freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            // All held open together, so no two are the same.
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports.add(socket.getLocalPort());
            }
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback ports", e);
        }
        return ports;
    }

    private static Map<String, String> apiKeys(String option) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String pair : option.split(",")) {
            int colon = pair.indexOf(':');
            keys.put(pair.substring(0, colon), pair.substring(colon + 1));
        }
        return keys;
    }

    private static List<Integer> ports(String list) {
        List<Integer> ports = new ArrayList<>();
        for (String port : list.split(",")) {
            ports.add(Integer.parseInt(port.trim()));
        }
        return ports;
    }

    private static String join(List<Integer> ports) {
        List<String> text = new ArrayList<>();
        for (int port : ports) {
            text.add(Integer.toString(port));
        }
        return String.join(",", text);
    }
}
