package io.reme.message;

import java.util.regex.Pattern;

/**
 * The alphabet for tenant, session and user IDs. They become parts of Kafka keys (where {@code /}
 * separates parts) and, downstream, folder names, so only a small safe set is accepted.
 */
public final class SafeId {
    public static final int MAX_LENGTH = 64;
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private SafeId() {}

    public static boolean isSafe(String value) {
        return value != null && SAFE.matcher(value).matches();
    }

    /** Returns a description of what is wrong with {@code value}, or null when it is safe. */
    public static String problem(String field, String value) {
        if (value == null || value.isEmpty()) {
            return field + " is required";
        }
        if (value.length() > MAX_LENGTH) {
            return field + " is longer than " + MAX_LENGTH + " characters";
        }
        if (!SAFE.matcher(value).matches()) {
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
