package io.reme.session;

/** Names of the session sub-topology's nodes, set explicitly so they never depend on wiring order. */
public final class SessionNodes {
    public static final String MESSAGES_SOURCE = "messages-source";
    public static final String RESULTS_SOURCE = "llm-results-source";
    public static final String MESSAGE_PROCESSOR = "session-message-processor";
    public static final String RESULT_PROCESSOR = "session-result-processor";
    public static final String REQUESTS_SINK = "llm-requests-sink";
    public static final String DIALOG_SINK = "dialog-sink";
    public static final String TOOL_RESULTS_SINK = "tool-results-sink";
    public static final String DLQ_SINK = "dlq-sink";

    private SessionNodes() {}
}
