package io.reme.session;

import io.reme.erasure.Erasure;
import io.reme.message.Block;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Erases a user's (or a tenant's) sessions from the task's session stores: nothing is archived, and
 * the full tool outputs the sessions could have stored are tombstoned. Used by the task's stream
 * thread only.
 */
final class SessionEraser {
    /**
     * Tool outputs of archived messages are tombstoned by their possible IDs (the messages are gone, so
     * which blocks were stored is unknown): the first this many blocks of every archived message.
     */
    static final int ARCHIVED_BLOCKS_TOMBSTONED = 16;

    private final TaskStores stores;
    private final SessionOutputs outputs;
    private final ActivityIndex activity;
    private final DiarySpans diary;

    SessionEraser(TaskStores stores, SessionOutputs outputs, ActivityIndex activity, DiarySpans diary) {
        this.stores = stores;
        this.outputs = outputs;
        this.activity = activity;
        this.diary = diary;
    }

    /** What {@link #erase} removed from this task's stores. */
    record Erased(long sessions, long messages, long summaries, long toolOutputs) {}

    /**
     * Deletes every session of {@code tenant} whose user {@code erasure} covers, from every session
     * store, without archiving anything, and tombstones the full tool outputs those sessions could
     * have stored (exactly for live messages, by candidate ID for archived ones). Spans in flight to
     * the workers are dropped, not dead-lettered: their content is what is being erased.
     */
    Erased erase(Erasure erasure, long timestamp) {
        List<SessionHeader> doomed = new ArrayList<>();
        try (KeyValueIterator<String, SessionHeader> it =
                stores.headers().prefixScan(erasure.tenant() + "/", new StringSerializer())) {
            it.forEachRemaining(entry -> {
                if (erasure.covers(entry.value.user())) {
                    doomed.add(entry.value);
                }
            });
        }
        long liveMessages = 0;
        long summaryCount = 0;
        long toolOutputs = 0;
        for (SessionHeader header : doomed) {
            SessionKey key = header.key();
            List<String> live = new ArrayList<>();
            try (KeyValueIterator<String, StoredMessage> it =
                    stores.messages().range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
                while (it.hasNext()) {
                    KeyValue<String, StoredMessage> entry = it.next();
                    live.add(entry.key);
                    List<Block> blocks = entry.value.message().content();
                    for (int i = 0; i < blocks.size(); i++) {
                        if (blocks.get(i) instanceof Block.ToolResult) {
                            outputs.toolResultTombstone(
                                    key.tenant(), ToolOutputs.id(key, entry.value.seq(), i), timestamp);
                            toolOutputs++;
                        }
                    }
                }
            }
            live.forEach(stores.messages()::delete);
            liveMessages += live.size();
            SessionHeader.Window window = header.window();
            for (long seq = 0; seq < Math.min(window.firstLiveSeq(), window.nextSeq()); seq++) {
                for (int i = 0; i < ARCHIVED_BLOCKS_TOMBSTONED; i++) {
                    outputs.toolResultTombstone(key.tenant(), ToolOutputs.id(key, seq, i), timestamp);
                    toolOutputs++;
                }
            }
            diary.drop(key);
            if (stores.summaries().get(key.key()) != null) {
                stores.summaries().delete(key.key());
                summaryCount++;
            }
            stores.recentIds().forget(key);
            activity.forget(key, header.lastActiveMs());
            stores.headers().delete(key.key());
        }
        return new Erased(doomed.size(), liveMessages, summaryCount, toolOutputs);
    }
}
