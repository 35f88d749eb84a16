package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.message.Message;
import io.reme.session.SessionStores;
import io.reme.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two instances of one application on one broker share the sessions' partitions; either answers
 * for any session of the caller's tenant, reading its own store or forwarding to the owner, and
 * neither shows one tenant's session to another.
 */
@Tag("integration")
class MultiInstanceIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int SESSIONS = 16;
    private static final int PER_SESSION = 12;

    @Test
    void eitherInstanceServesEverySessionOfTheCallersTenantOnly() throws Exception {
        Map<String, String> oneThread = Map.of(AppConfig.STREAM_THREADS.name(), "1");
        try (RemeApp a = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("a"), oneThread));
                RemeApp b = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("b"), oneThread))) {
            assertNotEquals(a.httpPort(), b.httpPort());
            awaitStableAssignment(a, b, Duration.ofSeconds(60));

            Map<String, Integer> sizes = new LinkedHashMap<>();
            for (int i = 0; i < SESSIONS; i++) {
                sizes.put("sess" + i, PER_SESSION);
            }
            Map<String, List<Envelope>> produced = TestKafka.conversations(3, "acme", sizes, 4_000);
            try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
                produced.values().forEach(envelopes -> TestKafka.send(producer, TOPICS.messages(), envelopes));
            }
            // Every session settles as seen through A, whichever instance owns it.
            ContextApi.awaitSettled(a::httpUrl, TestApps.ACME_KEY, sizes, Duration.ofSeconds(60), () -> {});

            HostInfo hostA = new HostInfo("127.0.0.1", a.httpPort());
            HostInfo hostB = new HostInfo("127.0.0.1", b.httpPort());
            List<String> ownedByA = new ArrayList<>();
            List<String> ownedByB = new ArrayList<>();
            for (String session : sizes.keySet()) {
                HostInfo owner = owner(a, session).activeHost();
                assertEquals(owner, owner(b, session).activeHost(), "both instances agree on the owner of " + session);
                (owner.equals(hostA) ? ownedByA : ownedByB).add(session);
                assertTrue(owner.equals(hostA) || owner.equals(hostB), "owner is one of the two: " + owner);
            }
            assertFalse(ownedByA.isEmpty(), "A owns some sessions");
            assertFalse(ownedByB.isEmpty(), "B owns some sessions");

            String remote = ownedByB.get(0);
            KeyQueryMetadata before = owner(a, remote);
            assertFalse(activePartitions(a).contains(before.partition()), "A has no local copy of " + remote);
            ContextApi.Response viaA = ContextApi.get(a.httpUrl(), TestApps.ACME_KEY, remote);
            assertEquals(200, viaA.status(), "A forwards to B: " + viaA.body());
            assertContext(viaA.body(), "acme/" + remote, produced.get("acme/" + remote));
            assertEquals(before, owner(a, remote), "ownership did not move while A answered");
            ContextApi.Response viaB = ContextApi.get(b.httpUrl(), TestApps.ACME_KEY, remote);
            assertEquals(200, viaB.status());
            assertEquals(viaB.body(), viaA.body(), "the forwarded answer is the owner's");
            assertEquals(
                    ContextApi.wholeWindow(b.httpUrl(), TestApps.ACME_KEY, remote)
                            .body(),
                    ContextApi.wholeWindow(a.httpUrl(), TestApps.ACME_KEY, remote)
                            .body(),
                    "the whole window is forwarded with its parameter");
            ContextApi.Response openAiViaA = ContextApi.formatted(a.httpUrl(), TestApps.ACME_KEY, remote, "openai");
            assertEquals(200, openAiViaA.status(), openAiViaA.body()::toString);
            assertEquals(
                    ContextApi.formatted(b.httpUrl(), TestApps.ACME_KEY, remote, "openai")
                            .body(),
                    openAiViaA.body(),
                    "the format is forwarded with its parameter");
            assertFalse(openAiViaA.body().path("messages").isEmpty(), "the owner's messages, ready to send");

            String local = ownedByA.get(0);
            assertFalse(activePartitions(b).contains(owner(b, local).partition()), "B has no local copy of " + local);
            ContextApi.Response fromB = ContextApi.get(b.httpUrl(), TestApps.ACME_KEY, local);
            assertEquals(200, fromB.status(), "B forwards to A: " + fromB.body());
            assertContext(fromB.body(), "acme/" + local, produced.get("acme/" + local));

            for (RemeApp app : List.of(a, b)) {
                for (String session : List.of(remote, local)) {
                    ContextApi.Response otherTenant = ContextApi.get(app.httpUrl(), TestApps.GLOBEX_KEY, session);
                    assertEquals(404, otherTenant.status(), "globex cannot see acme's " + session);
                    assertEquals(
                            "session_not_found",
                            otherTenant.body().path("error").path("code").asText());
                    assertTrue(otherTenant.body().path("messages").isMissingNode(), "no content leaks");

                    ContextApi.Response anonymous = ContextApi.get(app.httpUrl(), null, session);
                    assertEquals(401, anonymous.status());
                    assertTrue(anonymous.body().path("messages").isMissingNode());
                    assertEquals(
                            401,
                            ContextApi.get(app.httpUrl(), "not-a-valid-key-0123456789", session)
                                    .status());
                }
            }
        }
    }

    private static KeyQueryMetadata owner(RemeApp app, String session) {
        return app.streams().queryMetadataForKey(SessionStores.HEADERS, "acme/" + session, new StringSerializer());
    }

    /** Partitions of the session sub-topology whose active task runs on this instance. */
    static Set<Integer> activePartitions(RemeApp app) {
        Set<Integer> partitions = new HashSet<>();
        for (ThreadMetadata thread : app.streams().metadataForLocalThreads()) {
            thread.activeTasks().forEach(task -> partitions.add(task.taskId().partition()));
        }
        return partitions;
    }

    /** Both RUNNING, the four tasks split between them with none on both, unchanged over several looks. */
    static void awaitStableAssignment(RemeApp a, RemeApp b, Duration timeout) {
        AtomicInteger stableLooks = new AtomicInteger();
        AtomicReference<String> last = new AtomicReference<>("");
        Awaitility.await("a stable assignment")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> {
                    look(a, b, stableLooks, last);
                    assertTrue(stableLooks.get() >= 4, () -> "assignment not stable: " + last.get());
                });
    }

    /** One look at both assignments: counts the looks in a row that found the same good one. */
    private static void look(RemeApp a, RemeApp b, AtomicInteger stableLooks, AtomicReference<String> last) {
        Set<Integer> onA = activePartitions(a);
        Set<Integer> onB = activePartitions(b);
        String now = a.streams().state() + " " + onA + " / " + b.streams().state() + " " + onB;
        Set<Integer> all = new HashSet<>(onA);
        all.addAll(onB);
        boolean good = a.streams().state() == KafkaStreams.State.RUNNING
                && b.streams().state() == KafkaStreams.State.RUNNING
                && !onA.isEmpty()
                && !onB.isEmpty()
                && onA.size() + onB.size() == 4
                && all.equals(Set.of(0, 1, 2, 3));
        stableLooks.set(good && now.equals(last.get()) ? stableLooks.get() + 1 : good ? 1 : 0);
        last.set(now);
    }

    /** The context holds every produced message, in order, with jtokkit's counts, and nothing else. */
    private static void assertContext(JsonNode context, String key, List<Envelope> produced) {
        assertEquals(
                key,
                context.path("tenant").asText() + "/" + context.path("session").asText());
        JsonNode messages = context.path("messages");
        assertEquals(produced.size(), messages.size());
        long sum = 0;
        for (int i = 0; i < produced.size(); i++) {
            JsonNode entry = messages.get(i);
            Message message = PipelineChecks.tree(entry.path("message"), Message.class);
            assertEquals(i, entry.path("seq").asLong());
            assertEquals(produced.get(i).id(), message.id());
            assertEquals(
                    PipelineChecks.TOKENS.count(message), entry.path("tokens").asInt());
            sum += entry.path("tokens").asLong();
        }
        assertEquals(sum, context.path("tokens").path("messages").asLong());
        assertEquals(
                produced.size(),
                context.path("compaction").path("counters").path("MESSAGES").asInt());
    }
}
