package io.reme.message;

/**
 * The alphabet for tenant, session and user IDs. They become parts of Kafka keys (where {@code /}
 * separates parts) and, downstream, folder names, so only a small safe set is accepted.
 */
public final class SafeId {
    public static final int MAX_LENGTH = 64;

    private SafeId() {}

    public static boolean isSafe(String value) {
        return value != null && !value.isEmpty() && value.length() <= MAX_LENGTH && safeChars(value);
    }

    /**
     * {@code [A-Za-z0-9][A-Za-z0-9._-]*}, checked by hand: every message and every stored session header
     * checks its IDs, and a regular expression's matcher showed in the session processor's profile.
     */
    private static boolean safeChars(String value) {
        if (!isAlphanumeric(value.charAt(0))) {
            return false;
        }
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!isAlphanumeric(c) && c != '.' && c != '_' && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlphanumeric(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** Returns a description of what is wrong with {@code value}, or null when it is safe. */
    public static String problem(String field, String value) {
        if (value == null || value.isEmpty()) {
            return field + " is required";
        }
        if (value.length() > MAX_LENGTH) {
            return field + " is longer than " + MAX_LENGTH + " characters";
        }
        if (!safeChars(value)) {
            return field + " must match [A-Za-z0-9][A-Za-z0-9._-]* (got '" + printable(value) + "')";
        }
        return null;
    }

    public static String require(String field, String value) {
        String problem = problem(field, value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return value;
    }

    private static String printable(String value) {
        String cut = value.length() > 80 ? value.substring(0, 80) + "…" : value;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
