package io.reme.api.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.api.ApiException;
import io.reme.api.Callers;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where a keyed read goes when its owner cannot answer: a standby replica here, else another
 * instance's standby asked as one, and never further than one hop.
 */
class OwnerRoutingTest {
    private static final HostInfo SELF = new HostInfo("127.0.0.1", 1);
    private static final int PARTITION = 3;

    /** A request another instance received: its forwarded and standby headers. */
    record Asked(String path, String forwarded, String standby) {}

    private final List<WebServer> servers = new ArrayList<>();
    private final List<String> localCalls = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (WebServer server : servers) {
            server.close();
        }
    }

    @Test
    void anOwnerThatAnswers503IsReplacedByAnotherInstancesStandbyAskedAsOne() throws Exception {
        List<Asked> ownerAsked = new CopyOnWriteArrayList<>();
        List<Asked> standbyAsked = new CopyOnWriteArrayList<>();
        HostInfo owner = instance(ownerAsked, 503, "{\"error\":{\"code\":\"unavailable\"}}");
        HostInfo holder = instance(standbyAsked, 200, "{\"from\":\"standby\"}");
        OwnerRouting routing = routing(new KeyQueryMetadata(owner, Set.of(holder), PARTITION));

        Reply answer = read(routing, OwnerRouting.Hop.CLIENT);

        assertEquals(200, answer.status());
        assertEquals("{\"from\":\"standby\"}", new String(answer.body(), StandardCharsets.UTF_8));
        assertTrue(answer.standby(), "marked as a standby's answer");
        assertEquals(List.of(new Asked("/v1/k", "127.0.0.1:1", null)), ownerAsked, "the owner asked as the owner");
        assertEquals(List.of(new Asked("/v1/k", "127.0.0.1:1", "true")), standbyAsked, "the holder asked as a standby");
        assertEquals(List.of(), localCalls);
    }

    @Test
    void anOwnerHereThatIsRestoringAsksAStandbyElsewhere() throws Exception {
        List<Asked> standbyAsked = new CopyOnWriteArrayList<>();
        HostInfo holder = instance(standbyAsked, 200, "{\"from\":\"standby\"}");
        // Restoring: this instance's copy is far behind its changelog.
        OwnerRouting routing = routing(new KeyQueryMetadata(SELF, Set.of(holder), PARTITION), false);

        Reply answer = readWhileActiveRefuses(routing, "restoring", "standby");

        assertTrue(answer.standby());
        assertEquals(1, standbyAsked.size());
        assertEquals("true", standbyAsked.get(0).standby());
        assertEquals(List.of(), localCalls, "this instance holds no standby of its own active task");
    }

    @Test
    void anOwnerHereWhoseThreadRebalancesServesItsCurrentCopyWithoutACall() throws Exception {
        List<Asked> standbyAsked = new CopyOnWriteArrayList<>();
        HostInfo holder = instance(standbyAsked, 200, "{}");
        OwnerRouting routing = routing(new KeyQueryMetadata(SELF, Set.of(holder), PARTITION), true);

        Reply answer = readWhileActiveRefuses(routing, "the stream thread is PARTITIONS_ASSIGNED, not RUNNING", "copy");

        assertTrue(answer.standby());
        assertEquals(List.of("copy-" + PARTITION), localCalls);
        assertEquals(List.of(), standbyAsked);
    }

    @Test
    void aCopyFarBehindItsChangelogIsNeverServed() throws Exception {
        ApiException refused = assertThrows(
                ApiException.class,
                () -> read(
                        routing(new KeyQueryMetadata(nothingListens(), Set.of(SELF), PARTITION), false),
                        OwnerRouting.Hop.CLIENT));
        assertEquals(503, refused.status());
        assertThrows(
                ApiException.class,
                () -> read(
                        routing(new KeyQueryMetadata(nothingListens(), Set.of(SELF), PARTITION), false),
                        OwnerRouting.Hop.STANDBY));
        assertEquals(List.of(), localCalls, "a copy being rebuilt would answer with messages missing");
    }

    @Test
    void aCopyThatDoesNotHoldTheKeyIsNoAnswerNotA404() throws Exception {
        List<Asked> standbyAsked = new CopyOnWriteArrayList<>();
        HostInfo holder = instance(standbyAsked, 404, "{\"error\":{\"code\":\"session_not_found\"}}");
        OwnerRouting routing = routing(new KeyQueryMetadata(nothingListens(), Set.of(SELF, holder), PARTITION));

        ApiException refused = assertThrows(
                ApiException.class,
                () -> routing.routeOrStandby(
                        "store", "key", "/v1/k", OwnerRouting.Hop.CLIENT, Callers.ACME, local("active"), partition -> {
                            localCalls.add("copy-" + partition);
                            return Reply.notFound("session_not_found", "not here");
                        }));

        assertEquals(503, refused.status(), "a copy may not have caught up with the key yet");
        assertEquals(List.of("copy-" + PARTITION), localCalls);
        assertEquals(1, standbyAsked.size(), "the other copy was asked, and its 404 not relayed either");
    }

    @Test
    void aDeadOwnerIsReplacedByThisInstancesStandbyWithoutACall() throws Exception {
        OwnerRouting routing = routing(new KeyQueryMetadata(nothingListens(), Set.of(SELF), PARTITION));

        Reply answer = read(routing, OwnerRouting.Hop.CLIENT);

        assertTrue(answer.standby());
        assertEquals(List.of("standby-" + PARTITION), localCalls);
    }

    @Test
    void aReadAskedOfAStandbyIsReadFromItOrRefusedNeverForwarded() throws Exception {
        List<Asked> ownerAsked = new CopyOnWriteArrayList<>();
        HostInfo owner = instance(ownerAsked, 200, "{}");

        Reply answer = read(routing(new KeyQueryMetadata(owner, Set.of(SELF), PARTITION)), OwnerRouting.Hop.STANDBY);
        assertTrue(answer.standby());
        assertEquals(List.of("standby-" + PARTITION), localCalls);

        ApiException refused = assertThrows(
                ApiException.class,
                () -> read(routing(new KeyQueryMetadata(owner, Set.of(), PARTITION)), OwnerRouting.Hop.STANDBY));
        assertEquals(503, refused.status());
        // Even when this instance is the owner: the asker routed around it on purpose.
        assertThrows(
                ApiException.class,
                () -> read(routing(new KeyQueryMetadata(SELF, Set.of(), PARTITION)), OwnerRouting.Hop.STANDBY));
        assertEquals(List.of(), ownerAsked, "a standby read goes no further");
        assertEquals(List.of("standby-" + PARTITION), localCalls);
    }

    @Test
    void aReadForwardedToAnOwnerThatIsNotIsRefusedNotForwardedAgain() throws Exception {
        List<Asked> asked = new CopyOnWriteArrayList<>();
        HostInfo other = instance(asked, 200, "{}");
        OwnerRouting routing = routing(new KeyQueryMetadata(other, Set.of(SELF), PARTITION));

        ApiException refused = assertThrows(ApiException.class, () -> read(routing, OwnerRouting.Hop.OWNER));

        assertEquals(503, refused.status());
        assertEquals(List.of(), asked);
        assertEquals(List.of(), localCalls, "nor read from a standby: the asker decides that");
    }

    @Test
    void withoutAStandbyAnOwnersRefusalIsRelayedAndASilentOwnerIsA503() throws Exception {
        HostInfo owner = instance(new CopyOnWriteArrayList<>(), 503, "{\"error\":{\"code\":\"unavailable\"}}");
        Reply relayed = read(routing(new KeyQueryMetadata(owner, Set.of(), PARTITION)), OwnerRouting.Hop.CLIENT);
        assertEquals(503, relayed.status());
        assertFalse(relayed.standby());

        ApiException silent = assertThrows(
                ApiException.class,
                () -> read(
                        routing(new KeyQueryMetadata(nothingListens(), Set.of(), PARTITION)), OwnerRouting.Hop.CLIENT));
        assertEquals(503, silent.status());
        assertEquals(List.of(), localCalls);
    }

    @Test
    void aNotRunningApplicationRefusesBeforeLookingAnythingUp() {
        OwnerRouting routing = OwnerRouting.over(
                () -> KafkaStreams.State.PENDING_SHUTDOWN,
                (store, key, partitioner) -> {
                    throw new AssertionError("looked up");
                },
                (store, partition) -> true,
                new Instance(SELF, null));
        assertEquals(
                503,
                assertThrows(ApiException.class, () -> read(routing, OwnerRouting.Hop.CLIENT))
                        .status());
    }

    /** A client's read while this instance's active store refuses with {@code why}; copies read as {@code copy}. */
    private Reply readWhileActiveRefuses(OwnerRouting routing, String why, String copy) {
        return routing.routeOrStandby(
                "store",
                "key",
                "/v1/k",
                OwnerRouting.Hop.CLIENT,
                Callers.ACME,
                partition -> {
                    throw new InvalidStateStoreException(why);
                },
                standby(copy));
    }

    private Reply read(OwnerRouting routing, OwnerRouting.Hop hop) {
        return routing.routeOrStandby("store", "key", "/v1/k", hop, Callers.ACME, local("active"), standby("standby"));
    }

    private IntFunction<Reply> local(String who) {
        return partition -> {
            localCalls.add(who + "-" + partition);
            return new Reply(200, ("{\"from\":\"" + who + "\"}").getBytes(StandardCharsets.UTF_8));
        };
    }

    private IntFunction<Reply> standby(String who) {
        return local(who);
    }

    private static OwnerRouting routing(KeyQueryMetadata metadata) {
        return routing(metadata, true);
    }

    /** @param current whether this instance's copy of the partition is close enough to its changelog */
    private static OwnerRouting routing(KeyQueryMetadata metadata, boolean current) {
        return OwnerRouting.over(
                () -> KafkaStreams.State.RUNNING,
                (store, key, partitioner) -> metadata,
                (store, partition) -> current,
                new Instance(SELF, null));
    }

    private static HostInfo nothingListens() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            return new HostInfo("127.0.0.1", free.getLocalPort());
        }
    }

    /** Another instance that records each request and answers {@code status} with {@code body}. */
    private HostInfo instance(List<Asked> asked, int status, String body) throws Exception {
        WebServer server = WebServer.bind("routing-test", "127.0.0.1", 0, HttpSettings.DEFAULT);
        servers.add(server);
        server.start(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                asked.add(new Asked(
                        Request.getPathInContext(request),
                        request.getHeaders().get(OwnerRouting.FORWARDED_HEADER),
                        request.getHeaders().get(OwnerRouting.STANDBY_HEADER)));
                response.setStatus(status);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        return new HostInfo("127.0.0.1", server.port());
    }
}
