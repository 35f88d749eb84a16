package io.reme.provider.offline;

/**
 * The parts of a structured summary a sentence or item can go to, in the order {@link SummaryRenderer}
 * writes them (Critical Context last). The order also breaks ties when the budget drops items.
 */
enum Section {
    GOAL,
    CONSTRAINT,
    DONE,
    IN_PROGRESS,
    BLOCKED,
    DECISION,
    NEXT,
    CONTEXT
}
