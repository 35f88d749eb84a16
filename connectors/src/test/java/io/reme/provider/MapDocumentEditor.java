package io.reme.provider;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** An in-memory {@link DocumentEditor} over the two documents of one task, for tests. */
public final class MapDocumentEditor implements DocumentEditor {
    final Map<String, String> documents = new ConcurrentHashMap<>();
    private final Set<String> allowed;

    public MapDocumentEditor(DiaryTask task) {
        this.allowed = Set.of(task.dailyDocument(), LONG_TERM);
    }

    private void check(String document) {
        if (!allowed.contains(document)) {
            throw new IllegalArgumentException("unknown document '" + document + "'; use one of " + allowed);
        }
    }

    @Override
    public String read(String document) {
        check(document);
        return documents.getOrDefault(document, "");
    }

    @Override
    public void write(String document, String content) {
        check(document);
        documents.put(document, content);
    }

    @Override
    public void edit(String document, String oldText, String newText) {
        check(document);
        String current = documents.getOrDefault(document, "");
        int first = current.indexOf(oldText);
        if (oldText.isEmpty() || first < 0 || current.indexOf(oldText, first + 1) >= 0) {
            throw new IllegalArgumentException("old text must occur exactly once in " + document);
        }
        documents.put(document, current.substring(0, first) + newText + current.substring(first + oldText.length()));
    }
}
