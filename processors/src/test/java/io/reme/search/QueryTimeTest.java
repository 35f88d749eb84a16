package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.search.QueryTime.Field;
import io.reme.search.QueryTime.Term;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryTimeTest {
    @Test
    void readsTheMostSpecificDateNamed() {
        assertEquals(
                List.of(new Term(Field.DAY, "2023-10-13")),
                QueryTime.terms("What painting did Melanie show to Caroline on October 13, 2023?"));
        assertEquals(List.of(new Term(Field.DAY, "2023-05-08")), QueryTime.terms("what happened on 8th May 2023"));
        assertEquals(List.of(new Term(Field.DAY, "2024-02-29")), QueryTime.terms("notes from 2024-02-29"));
        assertEquals(
                List.of(new Term(Field.MONTH, "2023-07")),
                QueryTime.terms("What did Mel and her kids paint in their latest project in July 2023?"));
        assertEquals(
                List.of(new Term(Field.MONTH_OF_YEAR, "6")), QueryTime.terms("When did Melanie go camping in June?"));
        assertEquals(
                List.of(new Term(Field.YEAR, "2023")),
                QueryTime.terms("How many times has Melanie gone to the beach in 2023?"));
    }

    @Test
    void leavesWordsThatOnlyLookLikeDatesAlone() {
        assertEquals(List.of(), QueryTime.terms("What may Caroline do next?"));
        assertEquals(List.of(), QueryTime.terms("March on with the plan; what did she decide?"));
        assertEquals(List.of(), QueryTime.terms("ticket 2023 was closed by whom?"));
        assertEquals(List.of(), QueryTime.terms("What did Melanie paint recently?"));
        assertEquals(List.of(), QueryTime.terms("the meeting on February 30, 2023"));
        assertEquals(List.of(), QueryTime.terms(""));
        assertEquals(List.of(), QueryTime.terms(null));
    }

    @Test
    void writesEveryCalendarFieldOfATimeInUtc() {
        assertEquals(
                Map.of(
                        Field.DAY, "2023-10-13",
                        Field.MONTH, "2023-10",
                        Field.MONTH_OF_YEAR, "10",
                        Field.YEAR, "2023"),
                QueryTime.fields(Instant.parse("2023-10-13T23:30:00Z")));
    }
}
