package io.reme.api.diary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.api.ApiException;
import io.reme.api.Callers;
import io.reme.api.cluster.NotStartedStreams;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The path of {@code GET /v1/diary/{user}/{document}} is checked before any store is asked. */
class DiaryQueriesTest {

    @ParameterizedTest
    @ValueSource(strings = {"+10000-01-01", "-0001-01-01", "2026-13-01", "2026-1-1", "memory", "today"})
    void aDocumentThatIsNeitherADateNorMemoryIs400(String document) {
        ApiException e = assertThrows(
                ApiException.class,
                () -> new DiaryQueries(new NotStartedStreams(), null, null)
                        .document(Callers.ACME, "u1", document, false));
        assertEquals(400, e.status());
        assertEquals("invalid_document", e.code());
    }
}
