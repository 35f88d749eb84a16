package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StandingInstructionsTest {
    @Test
    void anOrderAboutWhatComesLaterIsAnInstruction() {
        assertTrue(StandingInstructions.isInstruction(
                "Always use 24-hour time format when I ask about meeting schedules. ->-> 1,32"));
        assertTrue(StandingInstructions.isInstruction("[5 Jan 2026] user: Never hardcode secrets in the repo"));
        assertTrue(StandingInstructions.isInstruction("Thanks. Please always answer in German."));
        assertTrue(StandingInstructions.isInstruction("From now on, run the tests before every push."));
        assertTrue(StandingInstructions.isInstruction("The deploy failed.\nNever touch prod on a Friday."));
    }

    @Test
    void statementsQuestionsAndCheersAreNot() {
        assertFalse(StandingInstructions.isInstruction("Joanna: Always good to hear! See you later!"));
        assertFalse(StandingInstructions.isInstruction("Never been to an animal shelter before, but it must be great"));
        assertFalse(StandingInstructions.isInstruction("Gina: No prob! Always here to help. Can't wait to see it"));
        assertFalse(StandingInstructions.isInstruction("Always running around, exploring and having a great time."));
        assertFalse(StandingInstructions.isInstruction("I lost my job. Never saw this coming."));
        assertFalse(StandingInstructions.isInstruction("You're doing great. Never give up!"));
        assertFalse(StandingInstructions.isInstruction("Should I always use a connection pool?"));
        assertFalse(StandingInstructions.isInstruction("I always use tabs, and I never commit on Fridays."));
        assertFalse(StandingInstructions.isInstruction("我总是喜欢坐火车。"));
    }

    @Test
    void aPreferenceIsOneTheSpeakerStates() {
        assertTrue(StandingInstructions.isPreference(
                "I prefer using rule-based suggestions over ML models for faster iteration."));
        assertTrue(StandingInstructions.isPreference("For the cache, I'd prefer Redis."));
        assertTrue(StandingInstructions.isPreference("I've set a preference for CPU-only deployment."));
        assertFalse(StandingInstructions.isPreference("Which do you prefer, Redis or Memcached?"));
        assertFalse(StandingInstructions.isPreference("The preferred way is a pool."));
    }

    @Test
    void theInstructionComesSecondAndThePreferenceThird() {
        List<String> texts = new ArrayList<>(List.of("pub/sub across servers", "events between servers"));
        for (int i = 2; i < 15; i++) {
            texts.add("server notes " + i);
        }
        texts.add("I prefer Redis pub/sub over in-memory event emitters.");
        texts.add("Always include a diagram when I ask about architecture.");
        assertEquals(
                List.of("h0", "h16", "h15", "h1"),
                StandingInstructions.upfront(hits(texts)).subList(0, 4).stream()
                        .map(Hit::id)
                        .toList());
    }

    @Test
    void theBestInstructionWithinTheDepthMovesUpBehindTheFirstHit() {
        List<String> texts = new ArrayList<>(List.of("What time is the standup?", "The standup moved to 9:30."));
        for (int i = 2; i < 10; i++) {
            texts.add("meeting notes " + i);
        }
        texts.add("Always use 24-hour time when I ask about meetings.");
        texts.add("Never push to main.");
        List<Hit> hits = hits(texts);
        assertEquals(
                List.of("h0", "h10", "h1", "h2"),
                StandingInstructions.upfront(hits).subList(0, 4).stream()
                        .map(Hit::id)
                        .toList());

        // One already in the first two stays where it is, and so does every other hit.
        List<Hit> near = hits(List.of("standup at 9:30", "Never schedule meetings on Fridays.", "Always be kind."));
        assertSame(near, StandingInstructions.upfront(near));
        // None within the depth: nothing moves.
        List<String> deep = new ArrayList<>();
        for (int i = 0; i < StandingInstructions.DEPTH; i++) {
            deep.add("note " + i);
        }
        deep.add("Always use 24-hour time.");
        List<Hit> below = hits(deep);
        assertSame(below, StandingInstructions.upfront(below));
    }

    @Test
    void onlyTheFirstHitsUsersInstructionsMove() {
        // A search over the tenant: alice asks about Kafka, and bob's preference and instruction are in the list.
        List<Hit> hits = new ArrayList<>(hits(List.of("which consumer settings did we decide on", "max.poll.records")));
        hits.addAll(hits(List.of("I prefer trains over buses.", "Always book a window seat."), "bob", 2));
        assertSame(hits, StandingInstructions.upfront(hits), "another user's rules stay where they rank");
        hits.addAll(hits(List.of("I prefer short answers with concrete config."), "alice", 4));
        assertEquals(
                List.of("h0", "h1", "h4", "h2"),
                StandingInstructions.upfront(hits).subList(0, 4).stream()
                        .map(Hit::id)
                        .toList());
    }

    private static List<Hit> hits(List<String> texts) {
        return hits(texts, "alice", 0);
    }

    /** Hits of {@code user}'s memories saying {@code texts}, ids and ranks from {@code from}. */
    private static List<Hit> hits(List<String> texts, String user, int from) {
        List<Hit> hits = new ArrayList<>();
        for (int n = 0; n < texts.size(); n++) {
            int i = from + n;
            MemoryRecord r = MemoryRecord.of(
                    "h" + i,
                    "acme",
                    user,
                    "s1",
                    MemoryType.PERSONAL,
                    texts.get(n),
                    Instant.parse("2026-01-01T00:00:00Z"));
            hits.add(new Hit(r, new Hit.Scores(1.0 - i / 100.0, null, null, null, null)));
        }
        return hits;
    }
}
