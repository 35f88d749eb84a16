package io.reme.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What {@code demo} prints for the memory browser. */
class DemoCommandTest {
    @Test
    void theBrowserAddressCarriesTheKeyInTheFragmentOnly() {
        // A fragment is never sent to the server, so the key stays out of request logs.
        assertEquals(
                "http://127.0.0.1:8080/ui/#key=abc%2B%2Fdef",
                DemoCommand.browserUrl("http://127.0.0.1:8080", "abc+/def"));
    }
}
