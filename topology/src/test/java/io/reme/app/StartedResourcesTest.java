package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartedResourcesTest {
    private final List<String> closed = new ArrayList<>();

    private AutoCloseable resource(String name) {
        return () -> closed.add(name);
    }

    @Test
    void closesTheMostRecentlyOpenedFirstAndEachOnce() {
        StartedResources resources = new StartedResources();
        resources.add("broker", resource("broker"));
        resources.add("streams", "the streams", () -> closed.add("streams, leaving the group"));
        resources.add("workers", resource("workers"));
        assertEquals(List.of("workers", "streams", "broker"), resources.names());

        resources.close();
        resources.close();

        assertEquals(List.of("workers", "streams, leaving the group", "broker"), closed);
        assertEquals(List.of(), resources.names());
    }

    @Test
    void aResourceNotStartedIsLetThrough() {
        StartedResources resources = new StartedResources();
        AutoCloseable none = null;
        assertNull(resources.add("watcher", none));
        assertEquals(List.of(), resources.names());
    }

    @Test
    void aFailedStartClosesEverythingAndKeepsCloseFailuresWithItsOwn() {
        StartedResources resources = new StartedResources();
        AutoCloseable model = resource("model");
        assertSame(model, resources.add("model", model));
        resources.add("producer", () -> {
            throw new IllegalStateException("producer stuck");
        });
        resources.add("workers", resource("workers"));
        IllegalStateException failure = new IllegalStateException("file sinks did not start");

        assertSame(failure, resources.closeAfter(failure));

        assertEquals(List.of("workers", "model"), closed, "a close that fails does not stop the others");
        assertEquals(1, failure.getSuppressed().length);
        assertEquals("producer stuck", failure.getSuppressed()[0].getMessage());
    }

    @Test
    void aCloseThatFailsOnStopIsLoggedAndTheRestStillClose() {
        StartedResources resources = new StartedResources();
        resources.add("broker", resource("broker"));
        resources.add("sinks", () -> {
            throw new Exception("connect did not stop");
        });
        resources.close();
        assertEquals(List.of("broker"), closed);
    }
}
