package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.tenant.ApiKeys;
import io.reme.api.tenant.TenantDirectory;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Tenants as data on two instances of one application: a tenant and key made through A's admin API
 * work on B within seconds, a revoked, expired or deleted tenant's key is refused on both, no issued
 * key appears in plain text in the topic, the data directories or the logs, and a tenant past its
 * quota gets 429 while another tenant's requests keep their latency.
 */
@Tag("integration")
class TenantsIT extends WithBroker {
    private static final String ADMIN_KEY = "admin-key-0123456789abcdef";
    private static final Duration PROPAGATION = Duration.ofSeconds(10);

    private static RemeApp a;
    private static RemeApp b;
    private static final ByteArrayOutputStream LOGS = new ByteArrayOutputStream();
    private static OutputStreamAppender<ILoggingEvent> appender;
    /** Every key text the admin API handed out during the tests, to look for afterwards. */
    private static final List<String> ISSUED = new ArrayList<>();

    @BeforeAll
    static void startInstances() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d %-5level [%thread] %logger - %msg%n%ex");
        encoder.start();
        appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.setOutputStream(LOGS);
        appender.start();
        context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);

        Map<String, String> options = new HashMap<>();
        options.put(AppConfig.ADMIN_KEY.name(), ADMIN_KEY);
        options.put(AppConfig.STREAM_THREADS.name(), "1");
        options.put(AppConfig.METRICS_TENANTS.name(), "flood,chatty");
        a = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("a"), options));
        b = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("b"), options));
    }

    @AfterAll
    static void stopInstances() {
        for (RemeApp app : Arrays.asList(b, a)) {
            if (app != null) {
                app.close();
            }
        }
        if (appender != null) {
            ((LoggerContext) LoggerFactory.getILoggerFactory())
                    .getLogger(Logger.ROOT_LOGGER_NAME)
                    .detachAppender(appender);
        }
    }

    @Test
    void aTenantMadeOnAWorksOnBAndItsRevokedExpiredOrDeletedKeysAreRefusedOnBoth() throws Exception {
        Response created = admin(a, "POST", "/v1/admin/tenants", Map.of("tenant", "initech"));
        assertEquals(201, created.status(), created.text());
        assertEquals("enabled", created.json().path("status").asText());
        assertEquals(
                200,
                admin(a, "POST", "/v1/admin/tenants", Map.of("tenant", "initech"))
                        .status(),
                "idempotent");

        String first = issue(a, "initech", null);
        String second = issue(a, "initech", null);
        long seenOnB = awaitStatus(b, first, status -> status != 401);
        System.out.printf("tenants: a key issued on A accepted on B after %d ms%n", seenOnB);
        assertAccepted(a, first);
        assertAccepted(b, second);

        // Admin routes take the admin key only.
        assertEquals(
                401, send(a, "GET", "/v1/admin/tenants", first, null).status(), "a tenant key is not an admin key");
        assertEquals(
                401,
                send(a, "GET", "/v1/admin/tenants", TestApps.ACME_KEY, null).status());
        assertEquals(401, send(a, "GET", "/v1/admin/tenants", null, null).status());
        Response listed = admin(b, "GET", "/v1/admin/tenants/initech/keys", null);
        assertEquals(200, listed.status(), listed.text());
        assertEquals(2, listed.json().path("keys").size());
        assertFalse(listed.text().contains("hash"), "neither keys nor hashes are listed: " + listed.text());

        // Revoked on B: refused on both within seconds; the tenant's other key keeps working.
        String firstId = idOf(first);
        Response revoked = admin(b, "DELETE", "/v1/admin/tenants/initech/keys/" + firstId, null);
        assertEquals(200, revoked.status(), revoked.text());
        assertFalse(revoked.json().path("live").asBoolean());
        assertEquals(401, status(b, first), "refused at once where it was revoked");
        long refusedOnA = awaitStatus(a, first, status -> status == 401);
        System.out.printf("tenants: a key revoked on B refused on A after %d ms%n", refusedOnA);
        assertAccepted(a, second);
        assertAccepted(b, second);

        // Expiry.
        String expiring = issue(a, "initech", Instant.now().plusSeconds(4));
        awaitStatus(b, expiring, status -> status != 401);
        awaitStatus(a, expiring, status -> status == 401);
        awaitStatus(b, expiring, status -> status == 401);

        // Disabling and enabling a static (reme.api.keys) tenant through the store.
        assertAccepted(b, TestApps.GLOBEX_KEY);
        assertEquals(
                201,
                admin(a, "POST", "/v1/admin/tenants", Map.of("tenant", "globex", "status", "disabled"))
                        .status());
        awaitStatus(b, TestApps.GLOBEX_KEY, status -> status == 403);
        assertEquals(
                200,
                admin(a, "POST", "/v1/admin/tenants", Map.of("tenant", "globex", "status", "enabled"))
                        .status());
        awaitStatus(b, TestApps.GLOBEX_KEY, status -> status != 403 && status != 401);

        // Deleting the tenant refuses its keys on both, and its name is not reused.
        Response deleted = admin(a, "DELETE", "/v1/admin/tenants/initech", null);
        assertEquals(200, deleted.status(), deleted.text());
        List<String> revokedIds = texts(deleted.json().path("revokedKeys"));
        assertTrue(revokedIds.contains(idOf(second)), "the live key is revoked: " + revokedIds);
        assertFalse(revokedIds.contains(firstId), "the key revoked before is not revoked again");
        assertEquals("started", deleted.json().path("erasure").asText());
        // The erasure runs under the key instances derive for one another, which a deleted tenant keeps.
        String instanceKey = new TenantDirectory(
                        ApiKeys.parse(""), null, Clock.systemUTC(), RequestSecrets.resolve(a.config()))
                .internalAuthorization("initech")
                .orElseThrow()
                .substring("Bearer ".length());
        Awaitility.await("the deleted tenant's erasure completes")
                .atMost(PROPAGATION)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    Response erasure = send(a, "GET", "/v1/tenant/erasure", instanceKey, null);
                    assertTrue(
                            erasure.json().path("complete").asBoolean(),
                            "the deleted tenant's erasure completes: " + erasure.text());
                });
        assertEquals(401, status(a, second));
        long deletedOnB = awaitStatus(b, second, status -> status == 401);
        System.out.printf("tenants: a tenant deleted on A refused on B after %d ms%n", deletedOnB);
        assertEquals(
                409,
                admin(b, "POST", "/v1/admin/tenants", Map.of("tenant", "initech"))
                        .status());
        assertEquals(
                404, admin(b, "POST", "/v1/admin/tenants/initech/keys", null).status());
        assertTrue(seenOnB < PROPAGATION.toMillis() && refusedOnA < PROPAGATION.toMillis());
    }

    @Test
    void aTenantPastItsQuotaGets429WhileAnotherKeepsItsLatency() throws Exception {
        String flood = tenantWithKey("flood", Map.of("requestsPerSecond", 50));
        String calm = tenantWithKey("calm", Map.of());
        String chatty = tenantWithKey("chatty", Map.of("messagesPerSecond", 5));
        awaitStatus(a, flood, status -> status != 401);
        awaitStatus(a, calm, status -> status != 401);
        Response unknownLimit = admin(a, "PUT", "/v1/admin/tenants/calm/policy", Map.of("maxWidgets", 10));
        assertEquals(400, unknownLimit.status(), "a limit that is not enforced is refused: " + unknownLimit.text());

        // Messages per second: a batch may run the bucket into debt, the next message then waits.
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(Map.of("session", "s1", "user", "u1", "role", "user", "content", "hello " + i));
        }
        assertEquals(202, send(a, "POST", "/v1/messages", chatty, batch).status());
        Response waitForIt = send(a, "POST", "/v1/messages", chatty, batch.get(0));
        assertEquals(429, waitForIt.status(), waitForIt.text());
        assertNotNull(waitForIt.retryAfter(), "429 carries Retry-After");
        assertTrue(Integer.parseInt(waitForIt.retryAfter()) >= 1);

        int samples = 300;
        warmUp(calm);
        long[] quiet = latencies(a, calm, samples);

        Flood throttled = flood(flood, calm, samples);
        System.out.printf(
                "tenants: calm tenant GET context on A, %d requests each: alone p50 %.2f ms p99 %.2f ms; "
                        + "with flood p50 %.2f ms p99 %.2f ms; flood (4 threads, 50/s quota) over %.1f s: "
                        + "%d accepted (%.1f/s), %d refused with 429%n",
                samples,
                percentile(quiet, 50),
                percentile(quiet, 99),
                percentile(throttled.calm(), 50),
                percentile(throttled.calm(), 99),
                throttled.seconds(),
                throttled.accepted(),
                throttled.accepted() / throttled.seconds(),
                throttled.refused());
        assertTrue(throttled.refused() > 0, "the flood was throttled");
        assertEquals(0, throttled.refusedWithoutRetryAfter());
        // One second's burst plus the rate, with slack for the bucket's refill between reads of the clock.
        assertTrue(
                throttled.accepted() <= 50 * throttled.seconds() * 1.1 + 60,
                "at most the quota got through: " + throttled.accepted() + " in " + throttled.seconds() + " s");
        // On two shared cores the flood's own cost still shows; the quota keeps it to a few times over.
        assertTrue(
                percentile(throttled.calm(), 50) <= 5 * percentile(quiet, 50) + 20,
                "the calm tenant's median stays near its quiet median");

        // For comparison: the same flood with no quota.
        assertEquals(
                200, admin(a, "PUT", "/v1/admin/tenants/flood/policy", Map.of()).status());
        Flood unthrottled = flood(flood, calm, samples);
        System.out.printf(
                "tenants: calm tenant with an unthrottled flood: p50 %.2f ms p99 %.2f ms; flood %d answered "
                        + "(%.1f/s), %d refused%n",
                percentile(unthrottled.calm(), 50),
                percentile(unthrottled.calm(), 99),
                unthrottled.accepted(),
                unthrottled.accepted() / unthrottled.seconds(),
                unthrottled.refused());
        assertEquals(0, unthrottled.refused(), "without a quota nothing is refused");

        // A costlier flood: batches of 50 messages, which the pipeline then counts, stores and plans.
        List<Map<String, Object>> fifty = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fifty.add(Map.of("session", "flood-" + (i % 5), "user", "u1", "role", "user", "content", "flood " + i));
        }
        assertEquals(
                200,
                admin(a, "PUT", "/v1/admin/tenants/flood/policy", Map.of("messagesPerSecond", 100))
                        .status());
        Flood messagesAtQuota = flood(() -> send(a, "POST", "/v1/messages", flood, fifty), calm, samples);
        assertEquals(
                200, admin(a, "PUT", "/v1/admin/tenants/flood/policy", Map.of()).status());
        Flood messagesUnthrottled = flood(() -> send(a, "POST", "/v1/messages", flood, fifty), calm, samples);
        System.out.printf(
                "tenants: calm tenant during a flood of 50-message batches: at 100 messages/s quota p50 %.2f ms "
                        + "p99 %.2f ms (%d batches accepted, %d refused in %.1f s); unthrottled p50 %.2f ms "
                        + "p99 %.2f ms (%d batches accepted in %.1f s)%n",
                percentile(messagesAtQuota.calm(), 50),
                percentile(messagesAtQuota.calm(), 99),
                messagesAtQuota.accepted(),
                messagesAtQuota.refused(),
                messagesAtQuota.seconds(),
                percentile(messagesUnthrottled.calm(), 50),
                percentile(messagesUnthrottled.calm(), 99),
                messagesUnthrottled.accepted(),
                messagesUnthrottled.seconds());
        assertTrue(messagesAtQuota.refused() > 0);

        String metrics = send(a, "GET", "/metrics", null, null).text();
        assertTrue(
                counter(metrics, "reme_http_throttled_total", "quota=\"requests\",tenant=\"flood\"") > 0,
                "throttling counted per tenant");
        assertTrue(counter(metrics, "reme_http_throttled_total", "quota=\"messages\",tenant=\"chatty\"") > 0);
    }

    @Test
    void mcpCallsTakeFromTheTenantsRequestQuotaLikeEveryRoute() throws Exception {
        String key = tenantWithKey("mcpquota", Map.of("requestsPerSecond", 1));
        awaitStatus(a, key, status -> status != 401);
        // A bucket of one second's worth, one token: three calls in a row cannot all get in.
        Response throttled = null;
        for (int i = 0; i < 3 && throttled == null; i++) {
            Response answer = send(a, "POST", "/mcp", key, Map.of("jsonrpc", "2.0", "id", i, "method", "ping"));
            assertNotEquals(401, answer.status(), answer.text());
            if (answer.status() == 429) {
                throttled = answer;
            }
        }
        assertNotNull(throttled, "an MCP call past the quota is refused");
        assertEquals(
                "too_many_requests", throttled.json().path("error").path("code").asText(), throttled.text());
        assertNotNull(throttled.retryAfter(), "429 carries Retry-After");
    }

    @Test
    void aTenantAtItsMemoryCountGets409OnEitherInstanceAndSessionSettingsAreCheckedAgainstTheInstance()
            throws Exception {
        String keeper = tenantWithKey("keeper", Map.of("maxMemories", 2));
        awaitStatus(a, keeper, status -> status != 401);
        awaitStatus(b, keeper, status -> status != 401);
        Map<String, Object> memory = Map.of("type", "personal", "user", "u1", "content", "likes tea");
        for (RemeApp app : List.of(a, b)) {
            Response added = send(app, "POST", "/v1/memories", keeper, memory);
            assertTrue(added.status() == 201 || added.status() == 202, added.text());
        }
        // The count is the index's: wait until both writes are applied (a 202 is written, not yet visible).
        Awaitility.await("both memories visible")
                .atMost(PROPAGATION)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> send(a, "GET", "/v1/memories", keeper, null)
                                .json()
                                .path("memories")
                                .size()
                        >= 2);
        for (RemeApp app : List.of(a, b)) {
            Response refused = send(app, "POST", "/v1/memories", keeper, memory);
            assertEquals(409, refused.status(), refused.text());
            assertEquals(
                    "memory_quota", refused.json().path("error").path("code").asText());
        }
        assertEquals(
                200,
                admin(a, "PUT", "/v1/admin/tenants/keeper/policy", Map.of("maxMemories", 3))
                        .status());
        Response third = send(a, "POST", "/v1/memories", keeper, memory);
        assertTrue(third.status() == 201 || third.status() == 202, "a raised limit holds at once: " + third.text());

        // Session settings are laid over the instance's and must hold together with them.
        Response reserveTooLarge = admin(a, "PUT", "/v1/admin/tenants/keeper/policy", Map.of("reserve", 90_000));
        assertEquals(400, reserveTooLarge.status(), reserveTooLarge.text());
        assertEquals(
                "invalid_policy",
                reserveTooLarge.json().path("error").path("code").asText());
        Response retentionShort =
                admin(a, "PUT", "/v1/admin/tenants/keeper/policy", Map.of("idleAfter", "PT2H", "retention", "PT1H"));
        assertEquals(400, retentionShort.status(), retentionShort.text());
        Response window = admin(
                a,
                "PUT",
                "/v1/admin/tenants/keeper/policy",
                Map.of("maxInputLength", 32768, "compactRatio", 0.8, "reserve", 4000, "idleAfter", "PT10M"));
        assertEquals(200, window.status(), window.text());
        assertEquals("PT10M", window.json().path("policy").path("idleAfter").asText(), window.text());
    }

    @Test
    void aTenantsWindowIsTheOneItsContextAndSessionListShow() throws Exception {
        String key = tenantWithKey("narrow", Map.of("maxInputLength", 32768, "compactRatio", 0.5, "reserve", 4000));
        awaitStatus(b, key, status -> status != 401);
        Response sent = send(
                a,
                "POST",
                "/v1/messages",
                key,
                List.of(Map.of("session", "w1", "user", "u1", "role", "user", "content", "hello")));
        assertEquals(202, sent.status(), sent.text());
        for (RemeApp app : List.of(a, b)) {
            AtomicReference<Response> answer = new AtomicReference<>();
            Awaitility.await("the context served")
                    .atMost(PROPAGATION)
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> {
                        answer.set(send(app, "GET", "/v1/sessions/w1/context", key, null));
                        assertEquals(200, answer.get().status(), answer.get().text());
                    });
            Response context = answer.get();
            JsonNode tokens = context.json().path("tokens");
            assertEquals(32768, tokens.path("maxInputLength").asInt(), "the tenant's window: " + tokens);
            long threshold = tokens.path("threshold").asLong();
            assertTrue(threshold > 0 && threshold <= 32768 / 2, "the tenant's compact ratio: " + tokens);
            Response listed = send(app, "GET", "/v1/sessions", key, null);
            assertEquals(200, listed.status(), listed.text());
            assertEquals(
                    threshold,
                    listed.json().path("sessions").get(0).path("threshold").asLong(),
                    "the listing's threshold is the window's: " + listed.text());
        }
    }

    @Test
    void noIssuedKeyIsWrittenInPlainText() throws Exception {
        String key = tenantWithKey("hooli", Map.of("requestsPerSecond", 1000));
        awaitStatus(b, key, status -> status != 401);
        List<String> keys;
        synchronized (ISSUED) {
            keys = List.copyOf(ISSUED);
        }
        assertFalse(keys.isEmpty());

        // The topic, read raw.
        List<byte[]> records = new ArrayList<>();
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "tenants-it-" + UUID.randomUUID());
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition =
                    new TopicPartition(Topics.withDefaultPrefix().tenants(), 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    records.add(record.key());
                    records.add(record.value());
                }
            }
        }
        assertTrue(records.size() > 4, "the topic holds the tenants and keys");
        for (String issued : keys) {
            for (byte[] bytes : records) {
                assertFalse(contains(bytes, secretOf(issued)), "a key's secret in the tenants topic");
            }
        }

        // Every file under the data directories and the broker's log directory.
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertTrue(files.size() > 10);
        for (Path file : files) {
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                continue; // a file removed while walking (segments, temp files)
            }
            for (String issued : keys) {
                assertFalse(contains(bytes, secretOf(issued)), "a key's secret in " + file);
            }
        }

        // Everything logged by the two instances so far.
        byte[] logged;
        synchronized (LOGS) {
            logged = LOGS.toByteArray();
        }
        assertTrue(new String(logged, StandardCharsets.UTF_8).contains("api key issued"), "the log was captured");
        for (String issued : keys) {
            assertFalse(contains(logged, secretOf(issued)), "a key's secret in the log");
        }
    }

    /** What a flood did: the calm tenant's sorted latencies meanwhile, and the flood's own answers. */
    private record Flood(long[] calm, int accepted, int refused, int refusedWithoutRetryAfter, double seconds) {}

    /** Four threads send the flood tenant's requests as fast as they are answered while the calm tenant is timed. */
    private static Flood flood(String floodKey, String calmKey, int samples) throws InterruptedException {
        return flood(() -> send(a, "GET", "/v1/sessions/s1/context", floodKey, null), calmKey, samples);
    }

    /** As above with the flood's request given: {@code request} sends one and returns its answer. */
    private static Flood flood(Supplier<Response> request, String calmKey, int samples) throws InterruptedException {
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger refusedWithoutRetryAfter = new AtomicInteger();
        long start = System.nanoTime();
        ExecutorService flooders = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4; i++) {
            flooders.submit(() -> {
                while (flooding.get()) {
                    Response response = request.get();
                    if (response.status() == 429) {
                        refused.incrementAndGet();
                        if (response.retryAfter() == null) {
                            refusedWithoutRetryAfter.incrementAndGet();
                        }
                    } else {
                        accepted.incrementAndGet();
                    }
                }
                return null;
            });
        }
        long[] calm;
        try {
            // A pause, not a wait: the flood runs for half a second before the calm tenant is timed.
            Thread.sleep(500);
            calm = latencies(a, calmKey, samples);
        } finally {
            flooding.set(false);
            flooders.shutdown();
            flooders.awaitTermination(30, TimeUnit.SECONDS);
        }
        return new Flood(
                calm, accepted.get(), refused.get(), refusedWithoutRetryAfter.get(), (System.nanoTime() - start) / 1e9);
    }

    private static String tenantWithKey(String tenant, Map<String, Object> policy) {
        Response created = admin(a, "POST", "/v1/admin/tenants", Map.of("tenant", tenant));
        assertTrue(created.status() == 201 || created.status() == 200, created.text());
        Response set = admin(a, "PUT", "/v1/admin/tenants/" + tenant + "/policy", policy);
        assertEquals(200, set.status(), set.text());
        return issue(a, tenant, null);
    }

    private static String issue(RemeApp app, String tenant, Instant expiresAt) {
        Response issued = admin(
                app,
                "POST",
                "/v1/admin/tenants/" + tenant + "/keys",
                expiresAt == null ? Map.of() : Map.of("expiresAt", expiresAt.toString()));
        assertEquals(201, issued.status(), issued.text());
        String key = issued.json().path("key").asText();
        assertTrue(key.startsWith("rk_" + issued.json().path("id").asText() + "_"), key);
        synchronized (ISSUED) {
            ISSUED.add(key);
        }
        return key;
    }

    private static String idOf(String key) {
        return key.substring(3, 19);
    }

    private static String secretOf(String key) {
        return key.substring(20);
    }

    private static void warmUp(String key) {
        for (int i = 0; i < 100; i++) {
            status(a, key);
        }
    }

    private static long[] latencies(RemeApp app, String key, int samples) {
        long[] nanos = new long[samples];
        for (int i = 0; i < samples; i++) {
            long start = System.nanoTime();
            int status = status(app, key);
            nanos[i] = System.nanoTime() - start;
            assertTrue(status != 401 && status != 429, "calm tenant refused: " + status);
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static double percentile(long[] sorted, int percentile) {
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, index)] / 1e6;
    }

    private static double counter(String metrics, String name, String labels) {
        Matcher matcher = Pattern.compile("(?m)^" + name + "\\{" + Pattern.quote(labels) + ",?\\} (\\S+)$")
                .matcher(metrics);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : -1;
    }

    private static void assertAccepted(RemeApp app, String key) {
        int status = status(app, key);
        assertTrue(status != 401 && status != 403, "key refused with " + status);
    }

    /** A tenant route that needs only the key: an unknown session is a 404 once the key is accepted. */
    private static int status(RemeApp app, String key) {
        return send(app, "GET", "/v1/sessions/no-such-session/context", key, null)
                .status();
    }

    /** Milliseconds until the instance answers a status the predicate accepts. */
    private static long awaitStatus(RemeApp app, String key, IntPredicate wanted) {
        long start = System.nanoTime();
        Awaitility.await("a wanted status")
                .atMost(PROPAGATION)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> {
                    int last = status(app, key);
                    assertTrue(wanted.test(last), "no wanted status yet; last " + last);
                });
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(node -> texts.add(node.asText()));
        return texts;
    }

    private static boolean contains(byte[] haystack, String needle) {
        byte[] bytes = needle.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + bytes.length <= haystack.length; i++) {
            for (int j = 0; j < bytes.length; j++) {
                if (haystack[i + j] != bytes[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private record Response(int status, String text, String retryAfter) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(text);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static Response admin(RemeApp app, String method, String path, Object body) {
        return send(app, method, path, ADMIN_KEY, body);
    }

    private static Response send(RemeApp app, String method, String path, String key, Object body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.httpUrl() + path))
                    .timeout(Duration.ofSeconds(15))
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofByteArray(Json.MAPPER.writeValueAsBytes(body)));
            if (key != null) {
                request.header("Authorization", "Bearer " + key);
            }
            HttpResponse<String> response = ApiClient.raw(request.build());
            return new Response(
                    response.statusCode(),
                    response.body(),
                    response.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            return new Response(-1, e.toString(), null);
        }
    }
}
