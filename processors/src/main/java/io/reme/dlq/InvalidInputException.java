package io.reme.dlq;

/** Thrown by parsers for input that must be dead-lettered; carries the reason code. */
public final class InvalidInputException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final DlqReason reason;

    public InvalidInputException(DlqReason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    public DlqReason reason() {
        return reason;
    }
}
