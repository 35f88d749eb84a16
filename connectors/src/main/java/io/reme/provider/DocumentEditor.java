package io.reme.provider;

/**
 * The tools a diary update works through: read, write and exact-match edit over the two documents
 * of a task ({@link DiaryTask#dailyDocument()} and {@link #LONG_TERM}). Any other name is refused
 * with {@link IllegalArgumentException}, so a model cannot touch another user's or tenant's files.
 */
public interface DocumentEditor {
    String LONG_TERM = "MEMORY.md";

    /** The document's current text, empty if it does not exist yet. */
    String read(String document);

    /** Replaces the whole document. */
    void write(String document, String content);

    /**
     * Replaces the one occurrence of {@code oldText}.
     *
     * @throws IllegalArgumentException if {@code oldText} does not occur exactly once (the message says which)
     */
    void edit(String document, String oldText, String newText);
}
