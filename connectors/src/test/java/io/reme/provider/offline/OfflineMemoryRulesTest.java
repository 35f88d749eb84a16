package io.reme.provider.offline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.provider.MergeTask;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the offline rules take a personal statement to be about, and when two texts are the same memory. */
class OfflineMemoryRulesTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "My favourite drink is green tea.|my favourite drink",
                "my home city is Porto|my home city",
                "I don't like green tea anymore.|green tea",
                "I no longer drink coffee because of my sleep.|coffee",
                "I like green tea in the morning.|green tea in the morning",
                "I always prefer trains over buses.|prefer trains",
                "I never fly with low-cost airlines.|fly with low-cost airlines",
                "I'm vegetarian and she has a peanut allergy.|vegetarian",
                "I am allergic to peanuts.|allergic to peanuts",
                "I prefer aisle seats.|aisle seats",
                "我的猫叫小白。|我的猫",
                "我喜欢绿茶。|绿茶",
                "我一直很喜欢早上喝绿茶，尤其是冬天。|早上喝绿茶",
                "我不再喜欢绿茶了。|绿茶",
                "我不喝咖啡|咖啡",
            })
    void statementsAreAboutTheirSubject(String sentence, String about) {
        assertEquals(about, OfflineMemoryRules.about(sentence));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "What time is it in Tokyo?",
                "Let's book Nishiyama Ryokan.",
                "The deploy failed again.",
                "东京现在几点？",
                "我们明天去深圳开会。",
            })
    void otherSentencesAreNotStatements(String sentence) {
        assertNull(OfflineMemoryRules.about(sentence));
    }

    @Test
    void subjectsMatchWhenOneExtendsTheOther() {
        assertTrue(OfflineMemoryRules.sameSubject("green tea", "green tea in the morning"));
        assertTrue(OfflineMemoryRules.sameSubject("green tea", "green tea"));
        assertFalse(OfflineMemoryRules.sameSubject("tea", "green tea"));
        assertFalse(OfflineMemoryRules.sameSubject("green tea", null));
    }

    @Test
    void duplicatesByNormalisedTextWordsOrVector() {
        MemoryRecord existing = MemoryRecord.of(
                "m1", "acme", "alice", null, MemoryType.PERSONAL, "My favourite city is Lisbon.", Instant.EPOCH);
        assertTrue(
                OfflineMemoryRules.duplicate("my favourite city is Lisbon!", new MergeTask.Neighbour(existing, null)));
        assertTrue(
                OfflineMemoryRules.duplicate("Lisbon is my favourite city", new MergeTask.Neighbour(existing, null)),
                "same words in another order");
        assertFalse(
                OfflineMemoryRules.duplicate("My favourite city is Porto.", new MergeTask.Neighbour(existing, 0.9)));
        assertTrue(
                OfflineMemoryRules.duplicate("Lisboa is the city I love most", new MergeTask.Neighbour(existing, 0.97)),
                "close enough in vector space");
    }
}
