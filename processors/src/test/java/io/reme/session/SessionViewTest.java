package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.context.ContextPolicy;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

class SessionViewTest {
    private static final SessionKey KEY = new SessionKey("acme", "s1");
    private static final ContextPolicy POLICY = new ContextPolicy(10_000, 0.7, 100, 0);

    private final MapStore<SessionHeader> headers = new MapStore<>();
    private final MapStore<StoredMessage> messages = new MapStore<>();
    private final MapStore<String> summaries = new MapStore<>();

    @Test
    void messagesWrittenAfterTheHeaderAreNotShownAgainstItsTokenCounts() {
        SessionHeader header = append(SessionHeader.empty("acme", "s1", "carol"), 0, 4);
        headers.map.put(KEY.key(), header);
        // The stream thread has stored two more messages but not yet their header update.
        message(1, 5);
        message(2, 6);

        SessionView view = read();

        assertEquals(1, view.messages().size());
        assertEquals(0, view.messages().get(0).seq());
        assertEquals(4, view.tokens().messages());
    }

    @Test
    void aCompactionBetweenTheTwoReadsIsReadAgain() {
        SessionHeader before = append(append(SessionHeader.empty("acme", "s1", "carol"), 0, 4), 1, 5);
        SessionHeader after = before.withPending(new PendingCompaction(
                        "r1", before.compaction().epoch(), 0, 0, 1, 4, Instant.EPOCH.plusSeconds(8)))
                .withApplied(3, 1, 4, Instant.EPOCH.plusSeconds(9));
        // The first header read sees two live messages, but message 0 is already archived.
        messages.map.remove(KEY.messageKey(0));
        ReadOnlyKeyValueStore<String, SessionHeader> racing = new MapStore<>() {
            private int reads;

            @Override
            public SessionHeader get(String key) {
                return reads++ == 0 ? before : after;
            }
        };

        SessionView view = SessionView.read(racing, messages, summaries, KEY, POLICY, "cl100k_base")
                .orElseThrow();

        assertEquals(1, view.messages().size());
        assertEquals(1, view.messages().get(0).seq());
        assertEquals(5, view.tokens().messages());
        assertEquals(3, view.tokens().summary());
    }

    @Test
    void aWindowOverTheModelsInputIsServedWithoutItsOldestMessages() {
        // A compaction is late: 3 x 4,000 tokens live against a 10,000-token input.
        SessionHeader header = SessionHeader.empty("acme", "s1", "carol");
        for (long seq = 0; seq < 3; seq++) {
            header = append(header, seq, 4000);
        }
        headers.map.put(KEY.key(), header);

        SessionView view = read();

        assertEquals(
                List.of(1L, 2L),
                view.messages().stream().map(StoredMessage::seq).toList());
        assertEquals(8000, view.tokens().messages());
        assertEquals(8000, view.tokens().total());
        assertEquals(1, view.tokens().omittedMessages());
        assertEquals(4000, view.tokens().omittedTokens());
        assertEquals(0.8, view.tokens().usageRatio(), 1e-9);
        assertEquals(12000.0 / POLICY.threshold(0), view.tokens().thresholdRatio(), 1e-9);
    }

    @Test
    void aMessageReTruncatedBetweenTheReadsCannotPushTheServedContextOverTheInput() {
        // The header still counts seq 1 at 3,000 tokens; the stream thread has just re-cut it to 1,000
        // and has not rewritten the header yet.
        SessionHeader header = SessionHeader.empty("acme", "s1", "carol");
        header = append(header, 0, 4000);
        header = append(header, 1, 3000);
        header = append(header, 2, 4000);
        header = append(header, 3, 4000);
        headers.map.put(KEY.key(), header);
        message(1, 1000);

        SessionView view = read();

        long served = view.messages().stream().mapToLong(StoredMessage::tokens).sum();
        assertEquals(served, view.tokens().messages(), "the counts are those of the messages served");
        assertTrue(view.tokens().total() <= POLICY.maxInputLength(), "served " + view.tokens());
    }

    @Test
    void theWholeWindowShowsTheMessagesHeldBack() {
        SessionHeader header = SessionHeader.empty("acme", "s1", "carol");
        for (long seq = 0; seq < 3; seq++) {
            header = append(header, seq, 4000);
        }
        headers.map.put(KEY.key(), header);

        SessionView view = SessionView.read(headers, messages, summaries, KEY, POLICY, "cl100k_base", true)
                .orElseThrow();

        assertEquals(
                List.of(0L, 1L, 2L),
                view.messages().stream().map(StoredMessage::seq).toList());
        assertEquals(12000, view.tokens().total());
        assertEquals(0, view.tokens().omittedMessages());
        assertEquals(1.2, view.tokens().usageRatio(), 1e-9, "over the input: the window, not what is served");
    }

    @Test
    void theSummaryAndReservedTokensCountAgainstTheInputToo() {
        ContextPolicy policy = new ContextPolicy(10_000, 0.7, 100, 1000);
        // A summary of 1,500 tokens (from a compaction of nothing, to keep the sequence at 0), then four messages.
        SessionHeader header = SessionHeader.empty("acme", "s1", "carol")
                .withPending(new PendingCompaction("r1", 1, -1, -1, 0, 0, Instant.EPOCH))
                .withApplied(1500, 0, 0, Instant.EPOCH);
        for (long seq = 0; seq < 4; seq++) {
            header = append(header, seq, 2000);
        }
        headers.map.put(KEY.key(), header);

        SessionView view = SessionView.read(headers, messages, summaries, KEY, policy, "cl100k_base")
                .orElseThrow();

        // 10,000 - 1,000 reserved - 1,500 summary leaves 7,500 for messages: three of 2,000 fit, not four.
        assertEquals(
                List.of(1L, 2L, 3L),
                view.messages().stream().map(StoredMessage::seq).toList());
        assertEquals(1, view.tokens().omittedMessages());
        assertEquals(7500, view.tokens().total());
        assertEquals(0.85, view.tokens().usageRatio(), 1e-9); // (1,500 + 6,000 + 1,000) / 10,000
    }

    @Test
    void messagesAreHeldBackAtATurnStartWhenOneFits() {
        List<StoredMessage> live = List.of(
                stored(0, Role.USER, 3000),
                stored(1, Role.ASSISTANT, 3000),
                stored(2, Role.USER, 3000),
                stored(3, Role.ASSISTANT, 3000));
        assertEquals(0, SessionView.omitted(live, 12000, 12000));
        // Holding back one would fit, but would serve an answer without its question.
        assertEquals(2, SessionView.omitted(live, 12000, 9000));
        // No turn start leaves a part that fits: the fewest oldest messages that do.
        assertEquals(3, SessionView.omitted(live, 12000, 3000));
        assertEquals(4, SessionView.omitted(live, 12000, 2000));
    }

    @Test
    void anUnknownSessionHasNoView() {
        assertEquals(Optional.empty(), SessionView.read(headers, messages, summaries, KEY, POLICY, "cl100k_base"));
    }

    private SessionView read() {
        return SessionView.read(headers, messages, summaries, KEY, POLICY, "cl100k_base")
                .orElseThrow();
    }

    private SessionHeader append(SessionHeader header, long seq, int tokens) {
        message(seq, tokens);
        return header.withAppended(tokens, "m" + seq, Instant.EPOCH.plusSeconds(seq), seq, List.of());
    }

    private void message(long seq, int tokens) {
        messages.map.put(KEY.messageKey(seq), stored(seq, tokens));
    }

    private static StoredMessage stored(long seq, Role role, int tokens) {
        return new StoredMessage(
                seq,
                tokens,
                new Message(
                        "acme",
                        "s1",
                        "carol",
                        "m" + seq,
                        role,
                        null,
                        Instant.EPOCH.plusSeconds(seq),
                        List.of(new Block.Text("message " + seq))));
    }

    private static StoredMessage stored(long seq, int tokens) {
        return new StoredMessage(
                seq,
                tokens,
                new Message(
                        "acme",
                        "s1",
                        "carol",
                        "m" + seq,
                        Role.USER,
                        null,
                        Instant.EPOCH.plusSeconds(seq),
                        List.of(new Block.Text("message " + seq))));
    }

    /** A sorted map behind the read-only store interface, as RocksDB orders keys by bytes. */
    private static class MapStore<V> implements ReadOnlyKeyValueStore<String, V> {
        final NavigableMap<String, V> map = new TreeMap<>();

        @Override
        public V get(String key) {
            return map.get(key);
        }

        @Override
        public KeyValueIterator<String, V> range(String from, String to) {
            return iterator(map.subMap(from, true, to, true));
        }

        @Override
        public KeyValueIterator<String, V> all() {
            return iterator(map);
        }

        @Override
        public long approximateNumEntries() {
            return map.size();
        }

        private static <V> KeyValueIterator<String, V> iterator(Map<String, V> entries) {
            Iterator<Map.Entry<String, V>> it = entries.entrySet().iterator();
            return new KeyValueIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public KeyValue<String, V> next() {
                    Map.Entry<String, V> e = it.next();
                    return KeyValue.pair(e.getKey(), e.getValue());
                }

                @Override
                public void close() {}

                @Override
                public String peekNextKey() {
                    throw new UnsupportedOperationException();
                }
            };
        }
    }
}
