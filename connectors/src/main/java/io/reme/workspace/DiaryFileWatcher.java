package io.reme.workspace;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.DocumentKey;
import io.reme.diary.EditSignature;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes hand edits of {@code MEMORY.md} and {@code memory/YYYY-MM-DD.md} as new document
 * versions through the single writer ({@code diary.edits}), so search and the models see them.
 *
 * <p>Polls the working directory (modification time and size first, content hash when they moved).
 * A file whose content is what the sink last wrote there is the sink's own write and is ignored. Any
 * other content is a hand edit once it has stayed the same for two polls (editors save in steps); it
 * is submitted based on the version the sink last wrote to the file. If a model edit got in first,
 * the sink holds the newer version back instead of overwriting the file, and the next poll submits
 * the {@link KeepBothMerge} of the person's file and the held version, based on the held one. Each
 * submission has an ID derived from the file content and base version, so nothing is sent twice.
 *
 * <p>One thread; {@link #poll} is also callable directly (tests). Create with {@link #start}, stop
 * with {@link #close}.
 */
public final class DiaryFileWatcher implements AutoCloseable {
    public static final String AUTHOR = "human";
    private static final Logger LOG = LoggerFactory.getLogger(DiaryFileWatcher.class);

    /**
     * Hand edits larger than this are refused without being read: the watch's producer takes records
     * up to 1 MiB (its default {@code max.request.size}), and a Markdown memory file of that size is no
     * hand edit anyone means to publish.
     */
    static final long MAX_EDIT_BYTES = 1024 * 1024;

    /**
     * A file as last seen. {@code settled} when there is nothing to do until it changes: it holds what
     * the sink wrote, or it was refused (not text, too large, a link); such a file is not read again
     * while its modification time and size stay the same.
     */
    private record Seen(long modified, long size, String sha256, boolean settled) {}

    private final Workspace workspace;
    private final DocumentLedger ledger;
    private final Producer<String, byte[]> producer;
    private final String editsTopic;
    /** Signs each published edit: the diary processor refuses unsigned ones. */
    private final RequestSecret secret;

    private final Clock clock;
    private final Map<Path, Seen> seen = new HashMap<>();
    private final Set<String> submitted = new HashSet<>();
    private final ScheduledExecutorService timer;
    private long reads;

    DiaryFileWatcher(
            Workspace workspace,
            Producer<String, byte[]> producer,
            String editsTopic,
            Clock clock,
            ScheduledExecutorService timer) {
        this(workspace, producer, editsTopic, clock, timer, RequestSecret.random());
    }

    DiaryFileWatcher(
            Workspace workspace,
            Producer<String, byte[]> producer,
            String editsTopic,
            Clock clock,
            ScheduledExecutorService timer,
            RequestSecret secret) {
        this.workspace = workspace;
        this.ledger = new DocumentLedger(workspace);
        this.producer = producer;
        this.editsTopic = editsTopic;
        this.clock = clock;
        this.timer = timer;
        this.secret = secret;
    }

    /**
     * Starts polling {@code workspace} every {@code interval}, producing edits signed with the
     * deployment's {@code secret} with {@code clientProps}.
     */
    public static DiaryFileWatcher start(
            Map<String, Object> clientProps,
            String editsTopic,
            Workspace workspace,
            Duration interval,
            RequestSecret secret) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "reme-diary-watch");
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "reme-diary-watch");
            thread.setDaemon(true);
            return thread;
        });
        DiaryFileWatcher watcher = new DiaryFileWatcher(
                workspace,
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer()),
                editsTopic,
                Clock.systemUTC(),
                timer,
                secret);
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        watcher.poll();
                    } catch (RuntimeException e) {
                        LOG.warn("diary watch poll failed; next poll retries error={}", e.toString());
                    }
                },
                0,
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info("watching root={} interval={}", workspace.root(), interval);
        return watcher;
    }

    /** One pass over the working directory; returns the edits submitted. */
    synchronized List<DiaryEdit> poll() {
        if (!Files.isDirectory(workspace.root())) {
            return List.of();
        }
        List<DiaryEdit> edits = new ArrayList<>();
        try {
            Files.walkFileTree(workspace.root(), Set.of(), 4, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    Optional<DocumentKey> key = workspace.documentAt(file);
                    if (key.isPresent() && (attributes.isRegularFile() || attributes.isSymbolicLink())) {
                        try {
                            // The entry itself (links are not followed): a linked MEMORY.md is refused in check.
                            check(file, key.get(), attributes).ifPresent(edits::add);
                        } catch (IOException e) {
                            // One unreadable file (removed mid-walk, no permission) must not hide the others.
                            LOG.warn("cannot check document file={} error={}", file, e.toString());
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    // The sinks write through temporary files renamed into place: one listed and gone before
                    // it was looked at is no error, and failing the walk for it left busy tenants' edits
                    // unpublished for as long as tool outputs kept coming (seen in bench cluster).
                    if (!(e instanceof NoSuchFileException)) {
                        LOG.warn("cannot read file={} error={}", file, e.toString());
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return edits;
    }

    private Optional<DiaryEdit> check(Path file, DocumentKey key, BasicFileAttributes attributes) throws IOException {
        long modified = attributes.lastModifiedTime().toMillis();
        long size = attributes.size();
        Seen before = seen.get(file);
        if (before != null && before.settled() && before.modified() == modified && before.size() == size) {
            return Optional.empty();
        }
        try {
            workspace.refuseLinks(file);
        } catch (RefusedPathException e) {
            return refuse(file, key, modified, size, e.getMessage());
        }
        if (size > MAX_EDIT_BYTES) {
            return refuse(file, key, modified, size, "larger than " + MAX_EDIT_BYTES + " bytes");
        }
        Optional<byte[]> read = AtomicFiles.readIfExists(workspace, file);
        reads++;
        if (read.isEmpty()) {
            return Optional.empty();
        }
        byte[] content = read.get();
        String sha256 = DocumentLedger.sha256(content);
        Optional<DocumentLedger.Written> written = ledger.written(key);
        boolean sinksOwn = written.isPresent() && written.get().sha256().equals(sha256);
        Optional<String> notText = sinksOwn ? Optional.empty() : notText(content);
        if (notText.isPresent()) {
            return refuse(file, key, modified, size, notText.get());
        }
        seen.put(file, new Seen(modified, size, sha256, sinksOwn));
        if (sinksOwn || before == null || !before.sha256().equals(sha256)) {
            return Optional.empty();
        }
        String text = new String(content, StandardCharsets.UTF_8);
        long base = written.map(DocumentLedger.Written::version).orElse(0L);
        Optional<DiaryDocument> held = ledger.held(key);
        if (held.isPresent() && held.get().version() > base) {
            // A held version of the person's own earlier save is no conflict: the file is newer.
            if (!DocumentFiles.isHumanEdit(held.get().editId())) {
                text = KeepBothMerge.merge(
                        ledger.base(key), text, held.get().content(), held.get().version());
            }
            base = held.get().version();
        }
        DiaryEdit edit = new DiaryEdit(
                DocumentFiles.humanEditId(content, base),
                key.tenant(),
                key.user(),
                key.name(),
                base,
                text,
                AUTHOR,
                clock.instant(),
                List.of());
        if (!submitted.add(edit.editId())) {
            return Optional.empty();
        }
        try {
            byte[] value = Json.MAPPER.writeValueAsBytes(edit);
            producer.send(new ProducerRecord<>(
                            editsTopic,
                            null,
                            key.key(),
                            value,
                            List.of(EditSignature.header(secret, key.key().getBytes(StandardCharsets.UTF_8), value))))
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            submitted.remove(edit.editId());
            return Optional.empty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RecordTooLargeException) {
                // Not retried: the same content would be refused again. A smaller save is a new edit.
                LOG.error(
                        "hand edit too large to publish tenant={} user={} document={} bytes={}",
                        key.tenant(),
                        key.user(),
                        key.name(),
                        content.length);
                seen.put(file, new Seen(modified, size, sha256, true));
                return Optional.empty();
            }
            submitted.remove(edit.editId());
            throw new IllegalStateException("cannot publish the edit of " + key.key() + ": " + e.getCause(), e);
        }
        LOG.info(
                "hand edit published tenant={} user={} document={} base={} merged={}",
                key.tenant(),
                key.user(),
                key.name(),
                base,
                !text.equals(new String(content, StandardCharsets.UTF_8)));
        return Optional.of(edit);
    }

    /** Logs why once, and leaves the file alone until its modification time or size changes. */
    private Optional<DiaryEdit> refuse(Path file, DocumentKey key, long modified, long size, String reason) {
        seen.put(file, new Seen(modified, size, "", true));
        LOG.warn(
                "hand edit refused tenant={} user={} document={} bytes={} reason={}",
                key.tenant(),
                key.user(),
                key.name(),
                size,
                reason);
        return Optional.empty();
    }

    /**
     * Why {@code content} is no text a person wrote, if it is not: bytes that are not UTF-8 (a strict
     * decoder, not one that puts U+FFFD in), or a control character other than tab, CR and LF
     * (a NUL is the mark of a binary file).
     */
    static Optional<String> notText(byte[] content) {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        CharBuffer text;
        try {
            text = decoder.decode(ByteBuffer.wrap(content));
        } catch (CharacterCodingException e) {
            return Optional.of("not valid UTF-8");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
                return Optional.of(String.format("control character U+%04X at character %d", (int) c, i));
            }
        }
        return Optional.empty();
    }

    /** How many times a document file was read (tests: a refused file is not read again until it changes). */
    synchronized long reads() {
        return reads;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }
}
