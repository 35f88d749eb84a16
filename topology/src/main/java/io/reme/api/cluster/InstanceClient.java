package io.reme.api.cluster;

import io.reme.api.Caller;
import io.reme.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one client for calls inside a deployment: an instance forwarding a read to a key's owner or a
 * standby holder ({@link OwnerRouting}), asking the other instances for their partitions' part
 * ({@link PartitionFanOut}), a worker asking an instance for existing memories ({@link
 * HttpMemoryLookup}). One connection pool for the process, one timeout and retry policy, one way to
 * spell an instance's URL. Every such call only reads, so a call that failed before any answer is
 * asked once more. Thread-safe.
 */
public final class InstanceClient {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** How long a call may take, answer included; a call past it is not asked again. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(InstanceClient.class);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

    /** This instance's address as the forwarding header names it; null for a client that is no instance. */
    private final String forwardedBy;
    /** What proves this instance's calls to the others ({@link InstanceProof}); null for none. */
    private final InstanceProof proof;

    private InstanceClient(String forwardedBy, InstanceProof proof) {
        this.forwardedBy = forwardedBy;
        this.proof = proof;
    }

    /**
     * The client of instance {@code self}: its calls carry {@link OwnerRouting#FORWARDED_HEADER} and the proof
     * that they come from the deployment. Without an address (an API served without Streams, in tests) nothing
     * is ever forwarded.
     */
    static InstanceClient from(Instance self) {
        HostInfo address = self.address();
        return new InstanceClient(address == null ? null : address.host() + ":" + address.port(), self.proof());
    }

    /** The client of a process that is no instance (a worker): its calls are a tenant's, not forwarded. */
    public static InstanceClient outside() {
        return new InstanceClient(null, null);
    }

    /** {@code path} on the instance at {@code host}. */
    static URI uri(HostInfo host, String path) {
        return URI.create("http://" + host.host() + ":" + host.port() + path);
    }

    /** {@code path} under {@code baseUrl} (such as {@code http://reme:8080}, trailing slashes ignored). */
    public static URI uri(String baseUrl, String path) {
        return URI.create(baseUrl.replaceAll("/+$", "") + path);
    }

    /**
     * GETs {@code uri} with the caller's credential and {@code headers}; empty when no answer came.
     */
    Optional<Reply> get(URI uri, Caller.Credential credential, Map<String, String> headers) {
        HttpRequest.Builder request = request("GET", uri, credential).GET();
        headers.forEach(request::header);
        return send(request.build());
    }

    /** POSTs {@code body} as JSON to {@code uri} with the caller's credential; empty when no answer came. */
    public Optional<Reply> post(URI uri, Caller.Credential credential, Object body) {
        return send(request("POST", uri, credential)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(body)))
                .build());
    }

    private HttpRequest.Builder request(String method, URI uri, Caller.Credential credential) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT);
        if (credential.authorization() != null) {
            request.header("Authorization", credential.authorization());
        }
        if (forwardedBy != null) {
            request.header(OwnerRouting.FORWARDED_HEADER, forwardedBy);
            if (proof != null) {
                request.header(InstanceProof.HEADER, proof.sign(method, uri.getPath(), credential.authorization()));
            }
        }
        return request;
    }

    private static Optional<Reply> send(HttpRequest request) {
        try {
            try {
                return Optional.of(sendOnce(request));
            } catch (HttpTimeoutException e) {
                LOG.warn("remote call failed uri={} error={}", request.uri(), e.toString());
                return Optional.empty();
            } catch (IOException e) {
                // A pooled connection the other side closed (after its error answer, or idle) fails the next
                // call before it is sent: asked once more, on a new connection.
                LOG.debug("remote call retried uri={} error={}", request.uri(), e.toString());
            }
            try {
                return Optional.of(sendOnce(request));
            } catch (IOException e) {
                LOG.warn("remote call failed uri={} error={}", request.uri(), e.toString());
                return Optional.empty();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Reply sendOnce(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
        return new Reply(
                response.statusCode(),
                response.body(),
                response.headers().firstValue("Retry-After").orElse(null),
                false);
    }
}
