package io.reme.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.tokens.TokenCounter;
import java.util.List;
import org.junit.jupiter.api.Test;

class SummaryFormatTest {
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 0);
    static final String VALID = """
            ## Goal
            Migrate orders-service to Kafka 4.4.
            ## Constraints & Preferences
            - never lose an order
            ## Progress
            ### Done
            - [x] config updated
            ### In Progress
            - [ ] staging soak
            ### Blocked
            (none)
            ## Key Decisions
            - **max-poll-records=100**: fewer commits
            ## Next Steps
            1. deploy
            ## Critical Context
            - /srv/orders/application.properties
            """;

    @Test
    void aCompleteSummaryHasNoProblems() {
        assertEquals(List.of(), SummaryFormat.problems(VALID, TOKENS, 4000));
    }

    @Test
    void reportsEachMissingOrEmptySection() {
        assertEquals(List.of("the summary is empty"), SummaryFormat.problems("  ", TOKENS, 4000));
        String noGoal = VALID.replace("## Goal\nMigrate orders-service to Kafka 4.4.\n", "");
        assertEquals(List.of("missing section '## Goal'"), SummaryFormat.problems(noGoal, TOKENS, 4000));
        String emptyDecisions = VALID.replace("- **max-poll-records=100**: fewer commits\n", "\n");
        assertEquals(
                List.of("section '## Key Decisions' is empty (write (none) if there is nothing)"),
                SummaryFormat.problems(emptyDecisions, TOKENS, 4000));
        String noBlocked = VALID.replace("### Blocked\n(none)\n", "");
        assertEquals(
                List.of("missing subsection '### Blocked' under '## Progress'"),
                SummaryFormat.problems(noBlocked, TOKENS, 4000));
        assertEquals(
                6,
                SummaryFormat.problems("[Compactor] failed: timeout", TOKENS, 4000)
                        .size());
    }

    @Test
    void enforcesTheTokenBudget() {
        List<String> problems = SummaryFormat.problems(VALID, TOKENS, 20);
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).contains("the budget is 20"), problems.get(0));
    }

    @Test
    void sectionsEndAtTheNextHeadingOfTheSameLevel() {
        assertEquals(
                "### Done\n- [x] config updated\n### In Progress\n- [ ] staging soak\n### Blocked\n(none)\n",
                SummaryFormat.section(VALID, "## ", "Progress"));
        assertEquals("(none)\n", SummaryFormat.section(VALID, "### ", "Blocked"));
        assertEquals(null, SummaryFormat.section(VALID, "## ", "Done"));
    }
}
