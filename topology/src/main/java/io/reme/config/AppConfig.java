package io.reme.config;

import io.reme.context.ContextPolicy;
import io.reme.llm.RequestSecret;
import io.reme.message.TimeBounds;
import io.reme.session.DedupWindow;
import io.reme.session.SessionSettings;
import io.reme.toolresult.TruncationLimits;
import io.reme.topic.RecordLimits;
import io.reme.topic.Topics;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The application's configuration, parsed and validated once at start-up. Each option is read from,
 * in order of precedence: a command-line option, its environment variable ({@code REME_...}), the
 * properties file, its default. Two families exist only in the properties file: per-tenant context
 * overrides ({@code reme.tenant.<tenant>.context.<option>}) and Kafka client settings passed through
 * verbatim ({@code kafka.<client config>}).
 */
public final class AppConfig {
    public static final ConfigField<String> DATA_DIR = new ConfigField<>(
            "reme.data.dir",
            "./reme-data",
            "Directory for the embedded broker's logs, Streams state, the generated API key and the working dir.",
            Parsers.text());
    public static final ConfigField<String> BOOTSTRAP_SERVERS = new ConfigField<>(
            "reme.bootstrap.servers",
            "",
            "Kafka cluster to use (host:port,...). Empty starts an embedded single-node broker under the data dir.",
            Parsers.text());
    public static final ConfigField<String> HTTP_HOST = new ConfigField<>(
            "reme.http.host",
            "127.0.0.1",
            "Address the HTTP API binds to. With no API keys (and no admin key) configured only 127.0.0.1 is allowed.",
            Parsers.text());
    public static final ConfigField<Integer> HTTP_PORT = new ConfigField<>(
            "reme.http.port", "8080", "HTTP API port; 0 picks a free port and prints it.", Parsers.intIn(0, 65535));
    public static final ConfigField<String> ADVERTISED_HOST = new ConfigField<>(
            "reme.http.advertised-host",
            "",
            "Host other instances use to reach this one's API (Streams application.server). Empty = reme.http.host.",
            Parsers.text());
    public static final ConfigField<Duration> HTTP_IDLE_TIMEOUT = new ConfigField<>(
            "reme.http.idle-timeout",
            "30s",
            "How long the HTTP server waits on a silent connection (idle, or a request half sent) before closing it.",
            Parsers.positiveDuration());
    public static final ConfigField<Integer> HTTP_MAX_THREADS = new ConfigField<>(
            "reme.http.max-threads",
            "64",
            "The HTTP server's own platform threads (requests run on virtual threads); with "
                    + "reme.http.max-queued it also bounds the requests admitted at once.",
            Parsers.intIn(8, 4096));
    public static final ConfigField<Integer> HTTP_MAX_QUEUED = new ConfigField<>(
            "reme.http.max-queued",
            "1024",
            "HTTP jobs waiting for a worker thread; beyond them a new connection is closed at once.",
            Parsers.intIn(1, 1_000_000));
    public static final ConfigField<Integer> HTTP_MAX_HEADER_BYTES = new ConfigField<>(
            "reme.http.max-header-bytes",
            "16384",
            "Largest request line and headers; larger requests get 431 (or 414 for a long URI).",
            Parsers.intIn(1024, 1 << 20));
    public static final ConfigField<Integer> HTTP_MAX_BODY_BYTES = new ConfigField<>(
            "reme.http.max-body-bytes",
            "16777216",
            "Largest request body; larger ones get 413 before they are read.",
            Parsers.intIn(1024, 1 << 30));
    public static final ConfigField<String> API_KEYS = new ConfigField<>(
            "reme.api.keys",
            "",
            "Bearer tokens per tenant as tenant:key,tenant:key. Empty serves tenant 'demo' with a random key printed "
                    + "at start and written to <data-dir>/api-key.",
            Parsers.text());
    public static final ConfigField<String> ADMIN_KEY = new ConfigField<>(
            "reme.admin.key",
            "",
            "Bearer key of the admin API (/v1/admin/...: tenants, their keys and policies); at least 16 characters, "
                    + "the same on every instance. Empty: there is no admin API (its routes answer 404).",
            AppConfig::adminKeyText);
    public static final ConfigField<String> APPLICATION_ID = new ConfigField<>(
            "reme.application.id",
            "reme-streams",
            "Kafka Streams application.id (consumer group and internal topic prefix).",
            Parsers.text());
    public static final ConfigField<String> TOPIC_PREFIX = new ConfigField<>(
            "reme.topic.prefix",
            Topics.DEFAULT_PREFIX,
            "Prefix of every topic name.",
            value -> new Topics(value == null ? "" : value).prefix());
    public static final ConfigField<Integer> PARTITIONS = new ConfigField<>(
            "reme.topic.partitions",
            "6",
            "Partitions of the topics created at start (P); bounds the parallelism.",
            Parsers.intIn(1, 10_000));
    public static final ConfigField<Integer> REPLICATION_FACTOR = new ConfigField<>(
            "reme.topic.replication-factor",
            "-1",
            "Replication factor of created topics; -1 uses the broker default.",
            Parsers.intIn(-1, 32));
    public static final ConfigField<Integer> STREAM_THREADS = new ConfigField<>(
            "reme.streams.threads", "2", "Kafka Streams stream threads per instance.", Parsers.intIn(1, 256));
    public static final ConfigField<String> PROCESSING_GUARANTEE = new ConfigField<>(
            "reme.streams.processing-guarantee",
            "exactly_once_v2",
            "exactly_once_v2 (default: store writes, outputs and offsets commit together) or " + "at_least_once.",
            Parsers.oneOf("exactly_once_v2", "at_least_once"));
    public static final ConfigField<Integer> COMMIT_INTERVAL_MS = new ConfigField<>(
            "reme.streams.commit-interval-ms",
            "100",
            "Streams commit interval in milliseconds.",
            Parsers.intIn(1, 600_000));
    public static final ConfigField<Integer> CACHE_MAX_BYTES = new ConfigField<>(
            "reme.streams.cache-max-bytes",
            "67108864",
            "Bytes of the Streams record cache, shared by the stream threads (0: none). A tool output is stored "
                    + "in full while recent and cut by the next message, mostly within the same commit; a cache "
                    + "that holds a commit's writes keeps the full form out of RocksDB and the changelog.",
            Parsers.intIn(0, Integer.MAX_VALUE));
    public static final ConfigField<Boolean> STATIC_MEMBERSHIP = new ConfigField<>(
            "reme.streams.static-membership",
            "true",
            "Join the Streams group as a static member whose group.instance.id is generated once and kept in "
                    + "<data-dir>/streams-instance-id, so a restarted instance takes its tasks back without waiting out "
                    + "the old member's session.",
            Parsers.bool());
    public static final ConfigField<Duration> SESSION_TIMEOUT = new ConfigField<>(
            "reme.streams.session-timeout",
            "10s",
            "How long the Streams group (and the workers' groups) wait for a silent instance before its tasks move "
                    + "to another (heartbeats every third of it). Shorter takes over sooner but a longer pause (GC, "
                    + "network) then moves tasks needlessly. Between 6s and 30m (the broker's default limits).",
            Parsers.durationIn(Duration.ofSeconds(6), Duration.ofMinutes(30)));
    public static final ConfigField<Integer> STANDBY_REPLICAS = new ConfigField<>(
            "reme.streams.standby-replicas",
            "1",
            "Warm copies of each task's stores kept on other instances (none with one instance, and none with the "
                    + "embedded broker), so a takeover serves at once instead of restoring from the changelog.",
            Parsers.intIn(0, 8));
    public static final ConfigField<Integer> ROCKSDB_MEMORY_MB = new ConfigField<>(
            "reme.rocksdb.memory-mb",
            "512",
            "MiB of native memory for all the instance's RocksDB stores together: one block cache shared by every "
                    + "store, holding their index and filter blocks and charged for their memtables. Reads beyond it "
                    + "come from the store files (the OS page cache). Fits a 4 GB instance with a 1.5 GB heap.",
            Parsers.intIn(16, 1 << 20));
    public static final ConfigField<Integer> ROCKSDB_WRITE_BUFFER_MB = new ConfigField<>(
            "reme.rocksdb.write-buffer-mb",
            "128",
            "MiB of reme.rocksdb.memory-mb that memtables may hold before the largest is flushed; less than it.",
            Parsers.intIn(1, 1 << 20));
    public static final ConfigField<Integer> MAX_INPUT_LENGTH = new ConfigField<>(
            "reme.context.max-input-length",
            Integer.toString(ContextPolicy.DEFAULT_MAX_INPUT_LENGTH),
            "The model's context length in tokens.",
            Parsers.intIn(1, Integer.MAX_VALUE));
    public static final ConfigField<Double> COMPACT_RATIO = new ConfigField<>(
            "reme.context.compact-ratio",
            Double.toString(ContextPolicy.DEFAULT_COMPACT_RATIO),
            "Share of the context the window may fill; threshold = floor(max-input-length x ratio x 0.95) - "
                    + "reserved-tokens - summary tokens.",
            Parsers.fraction());
    public static final ConfigField<Integer> RESERVE = new ConfigField<>(
            "reme.context.reserve",
            Integer.toString(ContextPolicy.DEFAULT_RESERVE),
            "Tokens of newest messages kept live when compacting.",
            Parsers.intIn(0, Integer.MAX_VALUE));
    public static final ConfigField<Integer> RESERVED_TOKENS = new ConfigField<>(
            "reme.context.reserved-tokens",
            "0",
            "Tokens set aside for the agent's system prompt.",
            Parsers.intIn(0, Integer.MAX_VALUE));
    public static final ConfigField<Integer> ORPHAN_CALL_TURNS = new ConfigField<>(
            "reme.context.orphan-call-turns",
            Integer.toString(ContextPolicy.DEFAULT_ORPHAN_CALL_TURNS),
            "A tool call still without its result after this many new turns no longer holds back compaction; "
                    + "the summary names it as unanswered.",
            Parsers.intIn(1, Integer.MAX_VALUE));
    public static final ConfigField<Integer> ORPHAN_CALL_TOKENS = new ConfigField<>(
            "reme.context.orphan-call-tokens",
            Integer.toString(ContextPolicy.DEFAULT_ORPHAN_CALL_TOKENS),
            "The same, after this many tokens have followed the call (whichever comes first).",
            Parsers.intIn(1, Integer.MAX_VALUE));
    public static final ConfigField<String> TOKEN_ENCODING = new ConfigField<>(
            "reme.tokens.encoding",
            "o200k_base",
            "jtokkit encoding: o200k_base, cl100k_base, p50k_base, p50k_edit or r50k_base.",
            Parsers.oneOf("o200k_base", "cl100k_base", "p50k_base", "p50k_edit", "r50k_base"));
    public static final ConfigField<Integer> IMAGE_TOKENS = new ConfigField<>(
            "reme.tokens.image", "1000", "Flat token cost of one image block.", Parsers.intIn(0, 1_000_000));
    public static final ConfigField<Integer> TOOL_RECENT_BYTES = new ConfigField<>(
            "reme.tool-result.recent-bytes",
            Integer.toString(TruncationLimits.DEFAULT_RECENT_BYTES),
            "Tool outputs in the newest messages are cut above this many bytes.",
            Parsers.intIn(1, Integer.MAX_VALUE));
    public static final ConfigField<Integer> TOOL_OLD_BYTES = new ConfigField<>(
            "reme.tool-result.old-bytes",
            Integer.toString(TruncationLimits.DEFAULT_OLD_BYTES),
            "Older tool outputs are re-cut to this many bytes.",
            Parsers.intIn(1, Integer.MAX_VALUE));
    public static final ConfigField<Duration> TOOL_RETENTION = new ConfigField<>(
            "reme.tool-result.retention",
            "3d",
            "How long full tool outputs are kept (retention.ms of the tool-results topic).",
            Parsers.positiveDuration());
    public static final ConfigField<String> LANGUAGE = new ConfigField<>(
            "reme.summary.language", "en", "Language summaries and diaries are written in.", Parsers.text());
    public static final ConfigField<Integer> SUMMARY_MAX_TOKENS = new ConfigField<>(
            "reme.summary.max-tokens",
            "4000",
            "Most tokens a summary may have; a window's budget is lower when half the room between its reserve and "
                    + "its threshold is smaller. A longer summary is refused and retried.",
            Parsers.intIn(100, 1_000_000));
    public static final ConfigField<Double> MAX_SPAN_SHARE = new ConfigField<>(
            "reme.compaction.max-span-share",
            Double.toString(ContextPolicy.DEFAULT_MAX_SPAN_SHARE),
            "Share of max-input-length the messages and previous summary of one compaction request may take; a larger "
                    + "backlog is compacted in several steps, and a span the model refuses as too long is halved.",
            Parsers.fraction());
    public static final ConfigField<Duration> RETRY_BACKOFF = new ConfigField<>(
            "reme.compaction.retry-backoff",
            "1m",
            "After a failed compaction, wait this long (record time) before planning another.",
            Parsers.duration());
    public static final ConfigField<Duration> PENDING_TIMEOUT = new ConfigField<>(
            "reme.compaction.pending-timeout",
            "15m",
            "A compaction without a result for this long is abandoned and re-requested.",
            Parsers.positiveDuration());
    public static final ConfigField<Duration> DIARY_RETRY_BACKOFF = new ConfigField<>(
            "reme.diary.retry-backoff",
            "1m",
            "After a diary update or memory extraction of a span FAILED, wait this long before sending it again, "
                    + "doubling with each failure up to an hour.",
            Parsers.duration());
    public static final ConfigField<Integer> DIARY_MAX_FAILURES = new ConfigField<>(
            "reme.diary.max-failures",
            "10",
            "Failures of a span's diary update or memory extraction after which it is dead-lettered (reason "
                    + "LLM_FAILED; 'replay-dlq' sends it again) instead of retried.",
            Parsers.intIn(1, 1000));
    public static final ConfigField<ZoneId> ZONE = new ConfigField<>(
            "reme.zone", "UTC", "Time zone that dates conversations (dialog archive files, diaries).", Parsers.zone());
    public static final ConfigField<Integer> INPUT_MAX_BYTES = new ConfigField<>(
            "reme.input.max-bytes",
            "4194304",
            "Largest accepted input record (key, value and headers) on messages, llm.results and diary.edits; larger "
                    + "ones are dead-lettered as an excerpt with size and digest before anything is written. At most "
                    + "half of reme.llm.max-request-bytes.",
            Parsers.intIn(1024, 64 * 1024 * 1024));
    public static final ConfigField<Duration> INPUT_MAX_CLOCK_SKEW = new ConfigField<>(
            "reme.input.max-clock-skew",
            "1d",
            "How far ahead of the accepting clock (the processor's on messages, the server's on POST /v1/messages) a "
                    + "message's time or record timestamp may be; later ones are refused (INVALID_TIME, HTTP 400).",
            Parsers.duration());
    public static final ConfigField<Instant> INPUT_EARLIEST_TIME = new ConfigField<>(
            "reme.input.earliest-time",
            "2000-01-01T00:00:00Z",
            "Earliest accepted message time or record timestamp; earlier ones are refused "
                    + "(INVALID_TIME, HTTP 400). A fixed instant, so a replay accepts what was accepted before.",
            Parsers.instant());
    public static final ConfigField<Integer> REQUEST_MAX_BYTES = new ConfigField<>(
            "reme.llm.max-request-bytes",
            "16777216",
            "Largest record the pipeline writes (an LLM request carries a window of messages); larger "
                    + "outputs are dropped and dead-lettered. Plus 64 KiB: max.message.bytes of every topic but messages "
                    + "and of every changelog, and the producers' max.request.size.",
            Parsers.intIn(1024 * 1024, 256 * 1024 * 1024));
    public static final ConfigField<Integer> HEALTH_THREAD_FAILURES = new ConfigField<>(
            "reme.health.thread-failures",
            "3",
            "Stream thread failures within reme.health.thread-failure-window that make /health/ready answer 503 "
                    + "(a failed thread is replaced; one that keeps failing serves nothing).",
            Parsers.intIn(1, 1000));
    public static final ConfigField<Duration> HEALTH_FAILURE_WINDOW = new ConfigField<>(
            "reme.health.thread-failure-window",
            "5m",
            "How long a stream thread failure counts against readiness.",
            Parsers.positiveDuration());

    public static final ConfigField<String> LLM_BASE_URL = new ConfigField<>(
            "reme.llm.base-url",
            "",
            "OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, DashScope ... /v1). With this and the model empty the "
                    + "offline extractive provider is used.",
            Parsers.text(),
            "LLM_BASE_URL");
    public static final ConfigField<String> LLM_API_KEY = new ConfigField<>(
            "reme.llm.api-key",
            "",
            "Key of the LLM endpoint (any non-blank value for a local server that does not check it).",
            Parsers.text(),
            "LLM_API_KEY");
    public static final ConfigField<String> LLM_MODEL =
            new ConfigField<>("reme.llm.model", "", "Chat model name, e.g. gpt-4o-mini.", Parsers.text(), "LLM_MODEL");
    public static final ConfigField<Duration> LLM_TIMEOUT = new ConfigField<>(
            "reme.llm.timeout",
            "120s",
            "Time one LLM call may take before it is abandoned and retried.",
            Parsers.positiveDuration());
    public static final ConfigField<Integer> LLM_MAX_ATTEMPTS = new ConfigField<>(
            "reme.llm.max-attempts",
            "5",
            "Attempts per request (timeouts, 5xx, 429, invalid summaries) before a FAILED result and a dead letter.",
            Parsers.intIn(1, 100));
    public static final ConfigField<Integer> LLM_CONCURRENCY = new ConfigField<>(
            "reme.llm.concurrency", "4", "LLM calls in flight per worker process.", Parsers.intIn(1, 1024));
    public static final ConfigField<Duration> LLM_BACKOFF = new ConfigField<>(
            "reme.llm.backoff",
            "500ms",
            "Base of the exponential backoff between attempts (full jitter).",
            Parsers.duration());
    public static final ConfigField<Duration> LLM_BACKOFF_MAX =
            new ConfigField<>("reme.llm.backoff-max", "30s", "Longest wait between attempts.", Parsers.duration());
    public static final ConfigField<Integer> LLM_MAX_OUTPUT_TOKENS = new ConfigField<>(
            "reme.llm.max-output-tokens", "8192", "Largest answer asked of the model.", Parsers.intIn(16, 1_000_000));
    public static final ConfigField<Boolean> WORKERS_EMBEDDED = new ConfigField<>(
            "reme.workers.embedded",
            "true",
            "Run the LLM workers inside this process (false: run them with the 'workers' command).",
            Parsers.bool());
    public static final ConfigField<String> WORKERS_SEARCH_URL = new ConfigField<>(
            "reme.workers.search-url",
            "",
            "For the 'workers' command: an app instance (e.g. http://reme:8080) whose search finds the existing memories "
                    + "an extraction merges with, using the tenants' keys of reme.api.keys. Empty = merge within each "
                    + "request only.",
            Parsers.text());
    public static final ConfigField<Duration> IDLE_AFTER = new ConfigField<>(
            "reme.session.idle-after",
            "30m",
            "A session quiet this long gets a diary update for what no diary has covered yet.",
            Parsers.positiveDuration());
    public static final ConfigField<Duration> SESSION_RETENTION = new ConfigField<>(
            "reme.session.retention",
            "30d",
            "A session quiet this long expires: its live messages are archived to the dialog topic and its state is "
                    + "deleted. Must be longer than reme.session.idle-after.",
            Parsers.positiveDuration());
    public static final ConfigField<Integer> DEDUP_COUNT = new ConfigField<>(
            "reme.session.dedup-window-count",
            Integer.toString(DedupWindow.DEFAULT_COUNT),
            "A message whose id was among the session's last this many "
                    + "messages (and within reme.session.dedup-window-age) is a retry: dropped and counted. Bounds the "
                    + "ids kept per session.",
            Parsers.intIn(1, 1_000_000));
    public static final ConfigField<Duration> DEDUP_AGE = new ConfigField<>(
            "reme.session.dedup-window-age",
            "1h",
            "How long a message id is remembered to drop a retry of it (processing time).",
            Parsers.positiveDuration());
    public static final ConfigField<String> REQUEST_SECRET = new ConfigField<>(
            "reme.request.secret",
            "",
            "Key of the HMAC that makes LLM request ids unguessable (a forged result cannot name a pending request) "
                    + "signs diary edits and erasure markers (the dialog sink deletes a user's files only on a signed one); at least 32 characters, the same for every instance and worker of a "
                    + "deployment. Empty: the embedded default generates one into <data-dir>/request-secret; with "
                    + "reme.bootstrap.servers it is required.",
            AppConfig::requestSecretText);

    public static final ConfigField<Integer> MEMORY_BUCKETS = new ConfigField<>(
            "reme.search.tenant-buckets",
            "1",
            "Partitions one tenant's memories are spread over (searches ask only those).",
            Parsers.intIn(1, 1024));
    public static final ConfigField<Integer> SEARCH_MAX_QUERY_CHARS = new ConfigField<>(
            "reme.search.max-query-chars",
            "4096",
            "Longest search text (POST /v1/search, /v1/memories/retrieve); longer ones get 400 query_too_long "
                    + "before they are embedded.",
            Parsers.intIn(1, 1 << 20));
    public static final ConfigField<Integer> SEARCH_MAX_QUERY_TERMS = new ConfigField<>(
            "reme.search.max-query-terms",
            "512",
            "Most terms a search text may become (words after stop words, plus CJK bigrams); more get 400 "
                    + "query_too_long. At most 1024, Lucene's clause limit.",
            Parsers.intIn(1, 1024));
    public static final ConfigField<Duration> MEMORY_VISIBILITY_TIMEOUT = new ConfigField<>(
            "reme.memories.visibility-timeout",
            "10s",
            "How long a memory write over HTTP waits for the index to apply it before answering 202 (not yet visible); "
                    + "also how long an erasure waits for every partition's report before answering 202.",
            Parsers.positiveDuration());
    public static final ConfigField<Boolean> MEMORY_EXTRACT = new ConfigField<>(
            "reme.memories.extract",
            "true",
            "Extract personal, procedural and tool memories from conversations (false: workers answer EXTRACT requests "
                    + "at once, without a model call).",
            Parsers.bool());
    public static final ConfigField<String> EMBEDDING = new ConfigField<>(
            "reme.embedding.provider",
            "local",
            "local (an ONNX sentence model shipped in the jar, offline), openai (an OpenAI-compatible /embeddings "
                    + "endpoint: set reme.embedding.model and reme.embedding.dimensions), or none (text search only).",
            Parsers.oneOf("local", "openai", "none"));
    public static final ConfigField<String> EMBEDDING_LOCAL_MODEL = new ConfigField<>(
            "reme.embedding.local-model",
            "bge-small-en-v1.5-q",
            "The local model: bge-small-en-v1.5-q (better recall) or all-minilm-l6-v2-q (about "
                    + "twice as fast, English only). Searches compare only vectors of the model in use. A change "
                    + "re-embeds every memory in the background; searches use the old vectors until it is done.",
            Parsers.oneOf("bge-small-en-v1.5-q", "all-minilm-l6-v2-q"));
    public static final ConfigField<String> EMBEDDING_CHINESE_MODEL = new ConfigField<>(
            "reme.embedding.chinese-model",
            "bge-small-zh-v1.5-q",
            "local: the model of Chinese texts, memories and queries alike (at least as many Han characters as "
                    + "words in other scripts): bge-small-zh-v1.5-q, or none (the local model embeds every text). "
                    + "Each model's vectors are searched apart. Setting it on a running deployment re-embeds "
                    + "the Chinese memories in the background.",
            Parsers.oneOf("bge-small-zh-v1.5-q", "none"));
    public static final ConfigField<Integer> EMBEDDING_THREADS = new ConfigField<>(
            "reme.embedding.threads",
            "0",
            "Local model runs at once, one core each; 0 = one per core.",
            Parsers.intIn(0, 256));
    public static final ConfigField<Integer> EMBEDDING_LOCAL_BATCH = new ConfigField<>(
            "reme.embedding.local-batch-size",
            "1",
            "Texts per local model run. 1 keeps each vector exactly what the text alone gives; larger batches "
                    + "are faster on short texts but move the quantised models' vectors a little (cosine ~0.99).",
            Parsers.intIn(1, 256));
    public static final ConfigField<String> EMBEDDING_MODEL = new ConfigField<>(
            "reme.embedding.model", "", "openai: the embedding model, e.g. text-embedding-3-small.", Parsers.text());
    public static final ConfigField<Integer> EMBEDDING_DIMENSIONS = new ConfigField<>(
            "reme.embedding.dimensions",
            "0",
            "openai: the length of its vectors, at most 1024 (text-embedding-3-* shorten theirs when asked).",
            Parsers.intIn(0, 1024));
    public static final ConfigField<Boolean> EMBEDDING_SEND_DIMENSIONS = new ConfigField<>(
            "reme.embedding.send-dimensions",
            "true",
            "openai: send the dimensions with each request (false for models and servers that reject it).",
            Parsers.bool());
    public static final ConfigField<Integer> EMBEDDING_BATCH_SIZE =
            new ConfigField<>("reme.embedding.batch-size", "128", "openai: texts per request.", Parsers.intIn(1, 2048));
    public static final ConfigField<String> EMBEDDING_BASE_URL = new ConfigField<>(
            "reme.embedding.base-url", "", "openai: the endpoint; empty = reme.llm.base-url.", Parsers.text());
    public static final ConfigField<String> EMBEDDING_API_KEY = new ConfigField<>(
            "reme.embedding.api-key", "", "openai: the endpoint's key; empty = reme.llm.api-key.", Parsers.text());

    public static final ConfigField<String> WORKSPACE_DIR = new ConfigField<>(
            "reme.workspace.dir",
            "",
            "Working directory of per-user files (dialog JSONL, diaries, MEMORY.md, tool outputs). Empty = "
                    + "<data-dir>/workspace.",
            Parsers.text());
    public static final ConfigField<String> SINKS_EMBEDDED = new ConfigField<>(
            "reme.sinks.embedded",
            "auto",
            "Run the file sink connectors in an in-process Kafka Connect worker: true, false (deploy them in a Connect "
                    + "cluster) or auto (only with the embedded broker, where there is one instance).",
            Parsers.oneOf("auto", "true", "false"));
    public static final ConfigField<Duration> WATCH_INTERVAL = new ConfigField<>(
            "reme.workspace.watch-interval",
            "1s",
            "How often the working directory is checked for hand edits of MEMORY.md and diaries, which are published "
                    + "as new versions; 0 turns the watch off.",
            Parsers.duration());
    public static final ConfigField<String> METRICS_TENANTS = new ConfigField<>(
            "reme.metrics.tenant-labels",
            "",
            "Tenants (tenant,tenant) that get their own 'tenant' label value in /metrics; all others are counted as "
                    + "'other', so label values stay bounded.",
            Parsers.tenantList());

    /**
     * Every option, in the order declared above: found from the constants themselves, so declaring one is
     * enough. Keep this after the last option.
     */
    public static final List<ConfigField<?>> FIELDS = ConfigField.declaredIn(AppConfig.class);

    private static final Pattern TENANT_OPTION = Pattern.compile(
            "reme\\.tenant\\.([^.]+)\\.context\\.(max-input-length|compact-ratio|reserve|reserved-tokens)");
    private static final String KAFKA_PREFIX = "kafka.";

    private final Map<String, Object> values;
    private final Map<String, ContextPolicy> tenantPolicies;
    private final Map<String, String> kafkaOverrides;
    /** The file's per-tenant and {@code kafka.*} entries as written, so {@link #with} can load them again. */
    private final Map<String, String> fileOnly;

    private AppConfig(
            Map<String, Object> values,
            Map<String, ContextPolicy> tenantPolicies,
            Map<String, String> kafkaOverrides,
            Map<String, String> fileOnly) {
        this.values = Map.copyOf(values);
        this.tenantPolicies = Map.copyOf(tenantPolicies);
        this.kafkaOverrides = Map.copyOf(kafkaOverrides);
        this.fileOnly = Map.copyOf(fileOnly);
    }

    /** Defaults overridden only by {@code overrides}; for tests and tools. */
    public static AppConfig of(Map<String, String> overrides) {
        return load(Map.of(), Map.of(), overrides);
    }

    public static Map<String, String> readFile(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new ConfigException(List.of("cannot read config file " + file + ": " + e.getMessage()));
        }
        Map<String, String> map = new TreeMap<>();
        properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
        return map;
    }

    /**
     * Parses and validates everything, reporting every bad value at once.
     *
     * @throws ConfigException listing each problem with the option's name
     */
    public static AppConfig load(Map<String, String> file, Map<String, String> env, Map<String, String> overrides) {
        List<String> errors = new ArrayList<>();
        Map<String, Object> values = new HashMap<>();
        for (ConfigField<?> field : FIELDS) {
            String raw = overrides.get(field.name());
            String source = "option";
            if (raw == null) {
                raw = env.get(field.envName());
                source = "environment " + field.envName();
            }
            if (raw == null) {
                raw = file.get(field.name());
                source = "config file";
            }
            if (raw == null) {
                raw = field.defaultValue();
                source = "default";
            }
            try {
                values.put(field.name(), field.parse(raw));
            } catch (IllegalArgumentException e) {
                errors.add(field.name() + " (" + source + "): " + e.getMessage());
            }
        }
        refuseUnknown(env, overrides, errors);
        Map<String, String> kafka = new LinkedHashMap<>();
        Map<String, String> fileOnly = new HashMap<>();
        Map<String, Map<String, Object>> tenantValues = new TreeMap<>();
        for (Map.Entry<String, String> entry : file.entrySet()) {
            Matcher tenant = TENANT_OPTION.matcher(entry.getKey());
            if (tenant.matches()) {
                fileOnly.put(entry.getKey(), entry.getValue());
                Map<String, Object> options = tenantValues.computeIfAbsent(tenant.group(1), t -> new HashMap<>());
                ConfigField<?> field = field("reme.context." + tenant.group(2));
                try {
                    options.put(field.name(), field.parse(entry.getValue()));
                } catch (IllegalArgumentException e) {
                    errors.add(entry.getKey() + " (config file): " + e.getMessage());
                }
            } else if (entry.getKey().startsWith(KAFKA_PREFIX)) {
                fileOnly.put(entry.getKey(), entry.getValue());
                kafka.put(entry.getKey().substring(KAFKA_PREFIX.length()), entry.getValue());
            } else if (entry.getKey().startsWith("reme.")
                    && FIELDS.stream().noneMatch(f -> f.name().equals(entry.getKey()))) {
                errors.add(entry.getKey() + " (config file): unknown option");
            }
        }
        Map<String, ContextPolicy> tenantPolicies = new HashMap<>();
        if (errors.isEmpty()) {
            AppConfig base = new AppConfig(values, Map.of(), kafka, fileOnly);
            tenantPolicies = tenantPolicies(base, tenantValues, errors);
            errors.addAll(base.problemsTogether());
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return new AppConfig(values, tenantPolicies, kafka, fileOnly);
    }

    /** Variables and options of no field: misspelt, they would be dropped unread. */
    private static void refuseUnknown(Map<String, String> env, Map<String, String> overrides, List<String> errors) {
        for (String name : env.keySet()) {
            // The process would run on a default the operator thought they had changed (REME_LLM_BASE_URL for
            // LLM_BASE_URL ran the offline provider).
            if (name.startsWith("REME_")
                    && FIELDS.stream().noneMatch(f -> f.envName().equals(name))) {
                errors.add(name + " (environment): unknown variable");
            }
        }
        for (String name : overrides.keySet()) {
            // A misspelt option, or a file-only one (kafka.*, per tenant).
            if (FIELDS.stream().noneMatch(f -> f.name().equals(name))) {
                errors.add(name + " (option): unknown option");
            }
        }
    }

    /** Each tenant's context window: its own options over the instance's. */
    private static Map<String, ContextPolicy> tenantPolicies(
            AppConfig base, Map<String, Map<String, Object>> tenantValues, List<String> errors) {
        ContextPolicy defaults;
        try {
            defaults = base.contextPolicy();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of("reme.context.*: " + e.getMessage()));
        }
        Map<String, ContextPolicy> tenantPolicies = new HashMap<>();
        tenantValues.forEach((tenant, options) -> {
            try {
                tenantPolicies.put(
                        tenant,
                        new ContextPolicy(
                                valueOr(options, MAX_INPUT_LENGTH, defaults.maxInputLength()),
                                valueOr(options, COMPACT_RATIO, defaults.compactRatio()),
                                valueOr(options, RESERVE, defaults.reserve()),
                                valueOr(options, RESERVED_TOKENS, defaults.reservedTokens()),
                                defaults.orphanCallTurns(),
                                defaults.orphanCallTokens(),
                                defaults.maxSpanShare()));
            } catch (IllegalArgumentException e) {
                errors.add("reme.tenant." + tenant + ".context: " + e.getMessage());
            }
        });
        return tenantPolicies;
    }

    /** What options valid one by one get wrong together. */
    private List<String> problemsTogether() {
        List<String> errors = new ArrayList<>();
        try {
            new TruncationLimits(get(TOOL_RECENT_BYTES), get(TOOL_OLD_BYTES));
        } catch (IllegalArgumentException e) {
            errors.add("reme.tool-result.*: " + e.getMessage());
        }
        try {
            recordLimits();
        } catch (IllegalArgumentException e) {
            errors.add(INPUT_MAX_BYTES.name() + ", " + REQUEST_MAX_BYTES.name() + ": " + e.getMessage());
        }
        if (get(ROCKSDB_WRITE_BUFFER_MB) >= get(ROCKSDB_MEMORY_MB)) {
            errors.add(ROCKSDB_WRITE_BUFFER_MB.name() + ": must be less than " + ROCKSDB_MEMORY_MB.name());
        }
        errors.addAll(embeddingProblems());
        errors.addAll(workerProblems());
        return errors;
    }

    /** What an openai embedding provider lacks; nothing for the other providers. */
    private List<String> embeddingProblems() {
        if (!"openai".equals(get(EMBEDDING))) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        if (get(EMBEDDING_MODEL).isBlank()) {
            problems.add(EMBEDDING_MODEL.name() + ": required with the openai embedding provider, e.g. "
                    + "text-embedding-3-small");
        }
        if (get(EMBEDDING_DIMENSIONS) == 0) {
            problems.add(EMBEDDING_DIMENSIONS.name() + ": required with the openai embedding provider, e.g. 1024");
        }
        if (get(EMBEDDING_API_KEY).isBlank() && get(LLM_API_KEY).isBlank()) {
            problems.add(EMBEDDING_API_KEY.name() + ": required with the openai embedding provider (or "
                    + LLM_API_KEY.name() + "; any non-blank value for a local server that does not check it)");
        }
        return problems;
    }

    /** What a separate workers process's memory lookup lacks; nothing when it has none. */
    private List<String> workerProblems() {
        String searchUrl = get(WORKERS_SEARCH_URL);
        if (searchUrl.isBlank()) {
            return List.of();
        }
        if (!searchUrl.matches("https?://[^/\\s]+(/\\S*)?")) {
            return List.of(WORKERS_SEARCH_URL.name() + ": expected http://host:port, got '" + searchUrl + "'");
        }
        if (get(API_KEYS).isBlank()) {
            return List.of(WORKERS_SEARCH_URL.name() + ": needs reme.api.keys, whose tenants' keys the lookups use");
        }
        return List.of();
    }

    private static ConfigField<?> field(String name) {
        return FIELDS.stream()
                .filter(f -> f.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no option " + name));
    }

    @SuppressWarnings("unchecked")
    private static <T> T valueOr(Map<String, Object> options, ConfigField<T> field, T fallback) {
        Object value = options.get(field.name());
        return value == null ? fallback : (T) value;
    }

    @SuppressWarnings("unchecked")
    public <T> T get(ConfigField<T> field) {
        if (!values.containsKey(field.name())) {
            throw new IllegalArgumentException("not an option of this config: " + field.name());
        }
        return (T) values.get(field.name());
    }

    public Path dataDir() {
        return Path.of(get(DATA_DIR)).toAbsolutePath().normalize();
    }

    /** The working directory the file sinks write and the watch reads. */
    public Path workspaceDir() {
        String configured = get(WORKSPACE_DIR);
        return configured.isBlank()
                ? dataDir().resolve("workspace")
                : Path.of(configured).toAbsolutePath().normalize();
    }

    /** Whether this instance runs the file sinks in-process. */
    public boolean sinksEmbedded() {
        String value = get(SINKS_EMBEDDED);
        return value.equals("auto") ? embeddedBroker() : Boolean.parseBoolean(value);
    }

    public boolean embeddedBroker() {
        return get(BOOTSTRAP_SERVERS).isBlank();
    }

    /** The tenants named in {@link #METRICS_TENANTS}. */
    public Set<String> metricsTenants() {
        String value = get(METRICS_TENANTS);
        return value.isEmpty() ? Set.of() : Set.copyOf(List.of(value.split(",")));
    }

    public Topics topics() {
        return new Topics(get(TOPIC_PREFIX));
    }

    /** The input and record limits every topic, changelog, sink and raw-byte source is set up with. */
    public RecordLimits recordLimits() {
        return new RecordLimits(get(INPUT_MAX_BYTES), get(REQUEST_MAX_BYTES));
    }

    public ContextPolicy contextPolicy() {
        return new ContextPolicy(
                get(MAX_INPUT_LENGTH),
                get(COMPACT_RATIO),
                get(RESERVE),
                get(RESERVED_TOKENS),
                get(ORPHAN_CALL_TURNS),
                get(ORPHAN_CALL_TOKENS),
                get(MAX_SPAN_SHARE));
    }

    public Map<String, ContextPolicy> tenantPolicies() {
        return tenantPolicies;
    }

    /** Kafka client settings from {@code kafka.*}, applied over ours to Streams and every client. */
    public Map<String, String> kafkaOverrides() {
        return kafkaOverrides;
    }

    /**
     * The session rules as configured. The request secret is the configured one, or else a random one
     * that nobody shares: an application passes its deployment's with {@code withRequestSecret}.
     */
    public SessionSettings sessionSettings() {
        return new SessionSettings(
                new SessionSettings.Windows(contextPolicy(), tenantPolicies),
                new TruncationLimits(get(TOOL_RECENT_BYTES), get(TOOL_OLD_BYTES)),
                new SessionSettings.Compacting(
                        get(LANGUAGE), get(SUMMARY_MAX_TOKENS), get(RETRY_BACKOFF), get(PENDING_TIMEOUT)),
                new SessionSettings.Lifetime(get(IDLE_AFTER), get(SESSION_RETENTION)),
                new SessionSettings.Input(
                        get(INPUT_MAX_BYTES),
                        new TimeBounds(get(INPUT_EARLIEST_TIME), get(INPUT_MAX_CLOCK_SKEW)),
                        new DedupWindow(get(DEDUP_COUNT), get(DEDUP_AGE)),
                        get(ZONE)),
                configuredRequestSecret().orElseGet(RequestSecret::random),
                new SessionSettings.DiaryRetry(
                        get(DIARY_RETRY_BACKOFF),
                        max(get(DIARY_RETRY_BACKOFF), Duration.ofHours(1)),
                        get(DIARY_MAX_FAILURES)));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** {@link #REQUEST_SECRET} if set. */
    public Optional<RequestSecret> configuredRequestSecret() {
        String text = get(REQUEST_SECRET);
        return text.isEmpty() ? Optional.empty() : Optional.of(RequestSecret.of(text));
    }

    /** Checks the length without ever echoing the value: it is a secret. */
    private static String adminKeyText(String value) {
        String text = value == null ? "" : value.trim();
        if (!text.isEmpty() && text.length() < 16) {
            throw new IllegalArgumentException("must be at least 16 characters (the value is not shown)");
        }
        return text;
    }

    /** Checks the length without ever echoing the value: it is a secret. */
    private static String requestSecretText(String value) {
        String text = value == null ? "" : value;
        if (!text.isEmpty()) {
            RequestSecret.of(text);
        }
        return text;
    }

    /**
     * A copy with some options replaced (values in their text form). Everything is validated again,
     * and per-tenant policies are rebuilt over the new defaults.
     */
    public AppConfig with(Map<String, String> replaced) {
        Map<String, String> raw = new HashMap<>();
        for (ConfigField<?> field : FIELDS) {
            Object value = values.get(field.name());
            raw.put(field.name(), value instanceof Duration d ? d.toString() : String.valueOf(value));
        }
        raw.putAll(replaced);
        return load(fileOnly, Map.of(), raw);
    }
}
