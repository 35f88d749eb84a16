package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.json.Json;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Versioned records, lookup by id, and filtered, sorted, paged listings of {@link MemoryIndex}. */
class MemoryListTest {
    private static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");
    private MemoryIndex index;

    @BeforeEach
    void open() {
        index = MemoryIndex.inMemory();
    }

    @AfterEach
    void close() throws IOException {
        index.close();
    }

    /** Memory i: created at T0 + i h, updated at T0 + (10 - i) h, said at T0 - i h; even ones about tea. */
    private static MemoryRecord memory(int i, String tenant) {
        Instant created = T0.plus(Duration.ofHours(i));
        return new MemoryRecord(
                "m" + i,
                new MemoryRecord.Owner(tenant, i % 3 == 0 ? "bob" : "alice", null),
                i % 2 == 0 ? MemoryType.PERSONAL : MemoryType.TOOL,
                "note " + i,
                new MemoryRecord.Times(created, T0.plus(Duration.ofHours(10 - i)), T0.minus(Duration.ofHours(i))),
                Map.of("topic", i % 2 == 0 ? "tea" : "tools"),
                i % 2 == 0 ? "alice" : "grep",
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.NONE,
                List.of());
    }

    private void fill() throws IOException {
        for (int i = 0; i < 10; i++) {
            index.upsert(memory(i, "acme"));
            index.upsert(memory(i, "globex"));
        }
        index.refresh();
    }

    private static MemoryListQuery query(MemoryListQuery.Sort sort, boolean descending, int limit) {
        return new MemoryListQuery("acme", null, null, null, null, null, null, sort, descending, limit, null);
    }

    private static List<String> ids(List<MemoryRecord> page) {
        return page.stream().map(MemoryRecord::id).toList();
    }

    @Test
    void revisionKeepsTheIdBumpsTheVersionAndRemembersThePreviousText() throws IOException {
        MemoryRecord first = memory(2, "acme");
        MemoryRecord second = first.revise("likes coffee now", Map.of("topic", "coffee"), T0.plusSeconds(5));
        MemoryRecord third = second.revise("likes water", second.metadata(), T0.plusSeconds(9));
        assertEquals(first.id(), third.id());
        assertEquals(3, third.version());
        assertEquals(
                List.of("likes coffee now", "note 2"),
                third.history().stream().map(MemoryRecord.Revision::text).toList());
        assertEquals(2, third.history().get(0).version());
        assertEquals(T0.plusSeconds(9), third.updatedAt());
        assertEquals(first.createdAt(), third.createdAt());

        MemoryRecord read = Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(third), MemoryRecord.class);
        assertEquals(third, read);
        index.upsert(third);
        index.refresh();
        assertEquals(third, index.get("acme", "m2"));
        assertNull(index.get("globex", "m2"), "another tenant's id is not found");
    }

    @Test
    void historyIsCapped() {
        MemoryRecord r = memory(1, "acme");
        for (int i = 0; i < MemoryRecord.MAX_HISTORY + 5; i++) {
            r = r.revise("text " + i, r.metadata(), T0.plusSeconds(i));
        }
        assertEquals(MemoryRecord.MAX_HISTORY, r.history().size());
        assertEquals(
                "text " + (MemoryRecord.MAX_HISTORY + 3), r.history().get(0).text());
        assertEquals(MemoryRecord.MAX_HISTORY + 6, r.version());
    }

    @Test
    void recordsWithoutVersionReadAsVersionOne() throws IOException {
        MemoryRecord old = Json.MAPPER.readValue(
                "{\"id\":\"x\",\"tenant\":\"acme\",\"type\":\"DIARY_CHUNK\"," + "\"text\":\"t\"}", MemoryRecord.class);
        assertEquals(1, old.version());
        assertEquals(List.of(), old.history());
        assertNull(old.target());
    }

    @Test
    void sortsByEachTimeInBothOrders() throws IOException {
        fill();
        assertEquals(List.of("m0", "m1", "m2"), ids(index.list(query(MemoryListQuery.Sort.CREATED, false, 3))));
        assertEquals(List.of("m9", "m8", "m7"), ids(index.list(query(MemoryListQuery.Sort.CREATED, true, 3))));
        assertEquals(List.of("m9", "m8", "m7"), ids(index.list(query(MemoryListQuery.Sort.UPDATED, false, 3))));
        assertEquals(List.of("m9", "m8", "m7"), ids(index.list(query(MemoryListQuery.Sort.CONVERSATION, false, 3))));
        assertEquals(List.of("m0", "m1"), ids(index.list(query(MemoryListQuery.Sort.CONVERSATION, true, 2))));
    }

    @Test
    void pagesCoverEverythingOnceEvenWithTiedValues() throws IOException {
        for (int i = 0; i < 23; i++) {
            // Only three distinct times: paging must fall back on ids.
            index.upsert(MemoryRecord.of(
                    String.format("id%02d", i),
                    "acme",
                    "alice",
                    null,
                    MemoryType.PERSONAL,
                    "n" + i,
                    T0.plusSeconds(i % 3)));
        }
        index.refresh();
        for (boolean descending : new boolean[] {false, true}) {
            List<String> seen = new ArrayList<>();
            MemoryListQuery q = query(MemoryListQuery.Sort.CREATED, descending, 5);
            while (true) {
                List<MemoryRecord> page = index.list(q);
                seen.addAll(ids(page));
                if (page.size() < 5) {
                    break;
                }
                MemoryRecord last = page.get(page.size() - 1);
                q = q.withAfter(new MemoryListQuery.Position(MemoryListQuery.Sort.CREATED.valueOf(last), last.id()));
            }
            assertEquals(23, seen.size(), "descending=" + descending + " " + seen);
            assertEquals(23, Set.copyOf(seen).size(), "no repeats: " + seen);
            List<String> sorted = new ArrayList<>(seen);
            sorted.sort((a, b) -> {
                int ta = Integer.parseInt(a.substring(2)) % 3;
                int tb = Integer.parseInt(b.substring(2)) % 3;
                return ta != tb ? Integer.compare(ta, tb) : a.compareTo(b);
            });
            if (descending) {
                Collections.reverse(sorted);
            }
            assertEquals(sorted, seen);
        }
    }

    @Test
    void filtersByTypeTargetUserTimeAndMetadata() throws IOException {
        fill();
        MemoryListQuery all = query(MemoryListQuery.Sort.CREATED, false, 100);
        assertEquals(
                List.of("m0", "m2", "m4", "m6", "m8"),
                ids(index.list(new MemoryListQuery(
                        "acme", Set.of(MemoryType.PERSONAL), null, null, null, null, null, null, false, 100, null))));
        assertEquals(
                List.of("m1", "m3", "m5", "m7", "m9"),
                ids(index.list(new MemoryListQuery(
                        "acme", null, Set.of("grep"), null, null, null, null, null, false, 100, null))));
        assertEquals(
                List.of("m0", "m3", "m6", "m9"),
                ids(index.list(new MemoryListQuery(
                        "acme", null, null, Set.of("bob"), null, null, null, null, false, 100, null))));
        assertEquals(
                List.of("m2", "m3"),
                ids(index.list(new MemoryListQuery(
                        "acme",
                        null,
                        null,
                        null,
                        T0.plus(Duration.ofHours(2)),
                        T0.plus(Duration.ofHours(4)),
                        null,
                        null,
                        false,
                        100,
                        null))));
        assertEquals(
                List.of("m1", "m3", "m5", "m7", "m9"),
                ids(index.list(new MemoryListQuery(
                        "acme", null, null, null, null, null, Map.of("topic", "tools"), null, false, 100, null))));
        assertEquals(
                List.of(),
                ids(index.list(new MemoryListQuery(
                        "acme",
                        null,
                        null,
                        null,
                        null,
                        null,
                        Map.of("topic", "tea", "x", "y"),
                        null,
                        false,
                        100,
                        null))));
        assertEquals(10, index.list(all).size(), "the other tenant's ten are never listed");
        index.list(all).forEach(r -> assertEquals("acme", r.tenant()));
    }

    @Test
    void searchFiltersByTarget() throws IOException {
        fill();
        SearchResult result = index.search(SearchQuery.text("acme", "note", 50).withTargets(Set.of("grep")));
        assertEquals(
                Set.of("m1", "m3", "m5", "m7", "m9"),
                Set.copyOf(result.hits().stream().map(Hit::id).toList()));
    }

    @Test
    void rejectsBadListings() {
        assertThrows(IllegalArgumentException.class, () -> query(MemoryListQuery.Sort.CREATED, false, 501));
        assertThrows(
                IllegalArgumentException.class,
                () -> new MemoryListQuery("a/b", null, null, null, null, null, null, null, false, 10, null));
        assertThrows(IllegalArgumentException.class, () -> memory(1, "acme").withTarget("bad\ntarget"));
    }
}
