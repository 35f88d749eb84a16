package io.reme.search;

/** What kind of memory a record is; an exact filter field of the index. */
public enum MemoryType {
    /** A fact or preference about the user. */
    PERSONAL,
    /** How to do something: steps, lessons learned. */
    PROCEDURAL,
    /** Experience with a tool: when and how it worked or failed. */
    TOOL,
    /** A chunk of a daily diary document. */
    DIARY_CHUNK,
    /** A chunk of raw dialog (one turn, possibly with its neighbours as context). */
    DIALOG_CHUNK
}
