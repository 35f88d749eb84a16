package io.reme.indexstore;

import io.reme.dlq.InputLimit;
import io.reme.erasure.Erasure;
import io.reme.json.Json;
import io.reme.search.MemoryIndex;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Lucene {@link MemoryIndex} as a state store, one per task, in the task's state directory.
 * Writes are upserts by memory id and deletes by tombstone, so replaying the {@code memories} topic
 * (restore, standby) is idempotent and needs no model call: records carry their vectors. A search
 * first refreshes the searcher if anything was written since, so it sees every applied record.
 * Used by its task's thread for writes; searches may come from any thread.
 *
 * <p>The store keeps its own offsets ({@link #managesOffsets()}): each Lucene commit point records the
 * offset of the last record it contains, and Streams restores from the one after it. So a crash (kill
 * -9, under exactly-once too) costs the replay of the records since the last commit, not a rebuild:
 * Streams wipes a store after a crash only when it cannot tell what the store holds. Lucene commits when
 * Streams commits the store (closing, restoring, on a standby) and, on an active task, which Streams
 * does not commit under exactly-once, every {@link #COMMIT_INTERVAL} ({@link MemoryIndexUpdater}).
 * Committing ahead of the task's transaction is safe: the records come from the topic,
 * committed, and the task replays what it had not committed, which {@link #holds} tells apart.
 */
public final class MemoryIndexStore implements StateStore {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryIndexStore.class);

    /** How often an active task's index commits: a crash replays at most the records of this long. */
    static final Duration COMMIT_INTERVAL = Duration.ofSeconds(10);
    /**
     * How often the index commits while records are restored (a standby, or a task catching up): each
     * commit flushes a segment, and graphs of small segments are built again by every merge, so a
     * restore commits rarely and buffers more ({@link #BULK_BUFFER_MB}); a crash in the middle replays
     * at most this long.
     */
    static final Duration BULK_COMMIT_INTERVAL = Duration.ofSeconds(60);
    /** The indexing buffer while restoring: a segment of up to about 30,000 memories of 384-d vectors. */
    static final double BULK_BUFFER_MB = 128;
    /** How long an expunge may hold the stream thread, well within the consumer's poll interval. */
    static final Duration EXPUNGE_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final InputLimit limit;
    private MemoryIndex index;
    private Position position = Position.emptyPosition();
    private volatile boolean open;
    /** Written since the last Lucene commit (made durable by {@link #commitNow}). */
    private boolean dirty;
    /** Written since the last searcher refresh (made visible by the next search). */
    private volatile boolean unseen;
    /** Offset of the last applied record of this task's partition (written by the task's thread only). */
    private volatile long applied = -1;
    /** Offset the last Lucene commit point records, -1 before any record (written by the task's thread only). */
    private long committed = -1;
    /** Whether the index's content is known: false for an index committed without an offset. */
    private boolean known;

    private long committedAtNanos = System.nanoTime();
    /** Whether records come from a restore (bulk) rather than from processing. */
    private boolean bulk;

    MemoryIndexStore(String name, InputLimit limit) {
        this.name = name;
        this.limit = limit;
    }

    /**
     * Deletes every memory index under a Streams application's state directory that is {@linkplain
     * MemoryIndex#outdated outdated} (created by an older Lucene, Lucene 9 before this version of the service, or
     * with an older layout of its fields), with its task's checkpoint files, so each is rebuilt from the
     * {@code memories} topic, whose records carry their vectors: Streams restores a store without a checkpoint from the
     * beginning of its changelog (under exactly-once it first wipes the task's directory). Called before
     * Streams starts, because Streams reads a store's checkpoint before the store's {@link #init}: deleting
     * it there would leave an empty index restored from the old offset. The checkpoint files also hold the
     * offsets of any other store of the task: the erasure reports' store, in memory and restored from
     * the beginning of its changelog anyway.
     *
     * @param applicationDir {@code state.dir/application.id}, holding one folder per task
     * @param storeName the store's name, its folder in a task's folder
     * @return the task folders whose index was deleted
     */
    public static List<Path> deleteOutdatedIndexes(Path applicationDir, String storeName) throws IOException {
        if (!Files.isDirectory(applicationDir)) {
            return List.of();
        }
        List<Path> tasks;
        try (Stream<Path> folders = Files.list(applicationDir)) {
            tasks = folders.filter(task -> Files.isDirectory(task.resolve(storeName)))
                    .sorted()
                    .toList();
        }
        List<Path> deleted = new ArrayList<>();
        for (Path task : tasks) {
            Path folder = task.resolve(storeName);
            if (!MemoryIndex.outdated(folder)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
            // The task's checkpoint (before Kafka 4.4, and kept for a downgrade) and the store's own one.
            Files.deleteIfExists(task.resolve(".checkpoint"));
            Files.deleteIfExists(task.resolve(".checkpoint_" + storeName));
            LOG.warn(
                    "outdated memory index deleted, it is rebuilt from the topic task={} store={}",
                    task.getFileName(),
                    storeName);
            deleted.add(task);
        }
        return deleted;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        Path folder = context.stateDir().toPath().resolve(name);
        try {
            index = MemoryIndex.open(folder);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the memory index in " + folder, e);
        }
        // Restored records carry their offsets, so a write acknowledged before a restore is known as applied after
        // it. Only a callback from Streams' internals sees offsets; the public ones see key and value.
        context.register(root, StreamsInternals.restoreWithOffsets(record -> {
            if (!bulk) {
                bulk = true;
                index.bufferMegabytes(BULK_BUFFER_MB);
            }
            // An erasure marker changes nothing here: the tombstones it caused follow it in the topic, then its
            // expunge request, which a copy restoring (a standby) carries out as the active task did.
            if (MemoryErasure.isExpunge(record.headers())) {
                expungeDeletes();
            } else if (EmbeddingSwitch.isSwitch(record.headers())) {
                switchProfile(EmbeddingSwitch.profileOf(record.headers()));
            } else if (!Erasure.isErasure(record.headers())) {
                apply(record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8), record.value());
            }
            applied = Math.max(applied, record.offset());
        }));
        OptionalLong recorded;
        try {
            recorded = index.committedOffset();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the memory index commit in " + folder, e);
        }
        known = recorded.isPresent();
        committed = recorded.orElse(-1);
        applied = committed;
        open = true;
        LOG.info(
                "memory index opened task={} documents={} committedOffset={} embeddingProfile={}",
                context.taskId(),
                count(),
                committed,
                index.embeddingProfile());
    }

    /**
     * Whether the record at {@code offset} is already in the index: a task replays from its last
     * committed transaction, which may be older than the index's last commit point.
     */
    boolean holds(long offset) {
        return offset <= applied;
    }

    /**
     * Applies one record of the {@code memories} topic: a record upserts, a tombstone deletes. A record
     * that cannot be read or that Lucene refuses is skipped; a failure of the index itself propagates as a
     * {@link ProcessorStateException}, so the task fails and its store is rebuilt instead of silently
     * missing a record.
     */
    void apply(String key, byte[] value) {
        MemoryKey memory;
        try {
            memory = MemoryKey.parse(key);
        } catch (IllegalArgumentException e) {
            LOG.warn("memory record without a tenant/id key skipped key={}", key);
            return;
        }
        String tenant = memory.tenant();
        String id = memory.id();
        String tooLarge = limit.violation(null, value, null);
        if (tooLarge != null) {
            // The same in processing and restore: a record no writer of ours makes is not indexed.
            LOG.warn("memory record over the input limit skipped key={} detail={}", key, tooLarge);
            return;
        }
        try {
            if (value == null) {
                index.delete(tenant, id);
                dirty = true;
                unseen = true;
                return;
            }
            MemoryRecord record;
            try {
                record = Json.MAPPER.readValue(value, MemoryRecord.class);
            } catch (IOException | IllegalArgumentException e) {
                // Records come from our own writers; one that cannot be read must not stop the index.
                LOG.warn("memory record skipped key={} error={}", key, e.toString());
                return;
            }
            if (!tenant.equals(record.tenant()) || !id.equals(record.id())) {
                // The key decides the tenant: a record claiming another one is never indexed.
                LOG.warn("memory record whose key does not match its tenant/id skipped key={}", key);
                return;
            }
            try {
                index.upsert(record);
            } catch (IllegalArgumentException e) {
                // Lucene refuses this record (a vector of another length, a term too long to index).
                LOG.warn("memory record refused by the index, skipped key={} error={}", key, e.toString());
                return;
            }
            dirty = true;
            unseen = true;
        } catch (IOException e) {
            throw new ProcessorStateException("memory index " + name + " failed to apply key=" + key, e);
        }
    }

    /**
     * From this record on, searches use {@code profile}'s query vectors ({@link SearchQuery#forProfile}): every
     * memory before the switch record carries that profile's vectors. Durable with the next commit, whose
     * offset is at least this record's, so a crash before it replays the switch.
     */
    void switchProfile(String profile) {
        String before = index.embeddingProfile();
        if (profile == null || profile.equals(before)) {
            return;
        }
        index.embeddingProfile(profile);
        dirty = true;
        LOG.info("memory index switched embedding profile store={} from={} to={}", name, before, profile);
    }

    /**
     * The ids of every memory an erasure of {@code user} ({@code null}: the whole tenant) removes, as of
     * every record applied so far.
     */
    List<String> idsOf(String tenant, String user) {
        try {
            index.refresh();
            return index.idsOf(tenant, user);
        } catch (IOException e) {
            throw new ProcessorStateException("memory index " + name + " failed to list tenant=" + tenant, e);
        }
    }

    /** Whether the index still holds deleted documents, whose content is in its files until merged away. */
    boolean holdsDeletions() {
        return index.hasDeletions();
    }

    /**
     * Merges away every deleted document (an erasure's) and commits, so the old segment files that still
     * held them are deleted; the searcher is refreshed, so no reader keeps them open. False if deleted
     * documents remained after {@link #EXPUNGE_TIMEOUT} (the stream thread must not stall longer).
     */
    boolean expungeDeletes() {
        try {
            long started = System.nanoTime();
            int before = index.segmentCount();
            boolean expunged = index.expungeDeletes(EXPUNGE_TIMEOUT);
            dirty = true;
            commitNow();
            index.deleteUnusedFiles();
            if (!expunged) {
                LOG.warn(
                        "memory index still holds deleted documents after {} s store={}; a later merge removes them",
                        EXPUNGE_TIMEOUT.toSeconds(),
                        name);
            }
            LOG.info(
                    "memory index expunged deleted documents store={} segments={}->{} committedOffset={} ms={}",
                    name,
                    before,
                    index.segmentCount(),
                    committed,
                    (System.nanoTime() - started) / 1_000_000);
            return expunged;
        } catch (IOException e) {
            throw new ProcessorStateException("memory index " + name + " failed to expunge deleted documents", e);
        }
    }

    void position(String topic, int partition, long offset) {
        position = position.withComponent(topic, partition, offset);
        applied = Math.max(applied, offset);
    }

    /**
     * Streams' commit of the store: on a standby, while restoring, and on every task commit when the
     * stores are transactional or the guarantee is at-least-once. A Lucene commit writes and syncs
     * segment files, and Streams commits every 100 ms under exactly-once: the index commits at most
     * once per {@link #COMMIT_INTERVAL} here ({@link #commitNow} commits at once).
     */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        // The offsets Streams hands over are those of the records it gave this store, which it knows as applied.
        if (System.nanoTime() - committedAtNanos >= (bulk ? BULK_COMMIT_INTERVAL : COMMIT_INTERVAL).toNanos()) {
            commitNow();
        }
    }

    /**
     * The task processes records from now on (its restore is over): commits come every {@link
     * #COMMIT_INTERVAL} again, with the live indexing buffer.
     */
    void live() {
        if (bulk) {
            bulk = false;
            index.bufferMegabytes(MemoryIndex.LIVE_BUFFER_MB);
        }
    }

    /**
     * Commits the index now: what was applied becomes durable and visible, with the offset it reached.
     * Not {@code StateStore.flush}, which Streams 4.4 no longer calls.
     */
    void commitNow() {
        committedAtNanos = System.nanoTime();
        if (!dirty && applied == committed && known) {
            return;
        }
        try {
            long upTo = applied;
            index.commit(upTo);
            committed = upTo;
            known = true;
            index.refresh();
            dirty = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot commit the memory index " + name, e);
        }
    }

    // Deprecated in Kafka 4.4 without a replacement, but Streams still asks it: false would wrap this
    // store in the legacy .checkpoint files instead of the offset its Lucene commits record.
    @SuppressWarnings("deprecation")
    @Override
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        // Null tells Streams nothing is known: an index from before offsets were recorded is rebuilt. A new
        // index is -1, restored from the start: Streams would take a new but not empty folder for corrupted.
        return known ? committed : null;
    }

    @Override
    public void close() {
        open = false;
        if (index != null) {
            try {
                commitNow();
                index.close();
            } catch (IOException e) {
                LOG.warn("memory index close failed store={} error={}", name, e.toString());
            }
        }
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public Position getPosition() {
        return position;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <R> QueryResult<R> query(Query<R> query, PositionBound bound, QueryConfig config) {
        if (query instanceof MemoryProgress) {
            return (QueryResult<R>) QueryResult.forResult(applied);
        }
        if (query instanceof EmbeddingState) {
            String profile = index.embeddingProfile();
            return (QueryResult<R>) QueryResult.forResult(profile == null ? "" : profile);
        }
        try {
            Object answer;
            if (query instanceof MemorySearch search) {
                refreshIfWritten();
                // The query vector of the profile this index searches with, never another model's.
                SearchQuery mine = search.query().forProfile(index.embeddingProfile());
                answer = mine == null
                        ? new SearchResult(List.of(), new SearchResult.Timings(0, 0, 0, 0, 0, 0, 0))
                        : search.candidates() ? index.candidates(mine) : index.search(mine);
            } else if (query instanceof MemoryGet get) {
                refreshIfWritten();
                answer = Optional.ofNullable(index.get(get.tenant(), get.id()));
            } else if (query instanceof MemoryList list) {
                refreshIfWritten();
                answer = index.list(list.query());
            } else if (query instanceof MemoryCount count) {
                refreshIfWritten();
                answer = count.tenant() == null ? index.count() : index.count(count.tenant());
            } else {
                return QueryResult.forUnknownQueryType(query, this);
            }
            QueryResult<Object> result = QueryResult.forResult(answer);
            result.setPosition(position);
            return (QueryResult<R>) result;
        } catch (IOException | RuntimeException e) {
            return QueryResult.forFailure(FailureReason.STORE_EXCEPTION, e.toString());
        }
    }

    /**
     * Near-real-time: a query sees every write applied so far, without a Lucene commit. Synchronized: a
     * query arriving while another refreshes waits for that refresh instead of reading the searcher from
     * before it (the flag is already cleared then), so an acknowledged delete is never found again.
     */
    private synchronized void refreshIfWritten() throws IOException {
        if (unseen) {
            unseen = false;
            index.refresh();
        }
    }

    int count() {
        try {
            return index.count();
        } catch (IOException e) {
            return -1;
        }
    }
}
