package io.reme.diary;

import io.reme.message.SafeId;
import java.time.LocalDate;
import java.util.Objects;

/**
 * Names one document: {@code tenant/user/2026-11-28} for a day's diary, {@code tenant/user/MEMORY}
 * for the long-term file. The name is validated, since the file sink turns it into a path.
 */
public record DocumentKey(String tenant, String user, String name) {
    public static final String LONG_TERM = "MEMORY";

    public DocumentKey {
        SafeId.require("tenant", tenant);
        SafeId.require("user", user);
        Objects.requireNonNull(name, "name");
        if (!LONG_TERM.equals(name)) {
            LocalDate.parse(name);
        }
    }

    public static DocumentKey daily(String tenant, String user, LocalDate date) {
        return new DocumentKey(tenant, user, date.toString());
    }

    public static DocumentKey longTerm(String tenant, String user) {
        return new DocumentKey(tenant, user, LONG_TERM);
    }

    public static DocumentKey parse(String key) {
        String[] parts = key == null ? new String[0] : key.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("document key must be tenant/user/name, got '" + key + "'");
        }
        return new DocumentKey(parts[0], parts[1], parts[2]);
    }

    public String key() {
        return tenant + "/" + user + "/" + name;
    }

    /** The file the working dir keeps it in, relative to the user's folder. */
    public String path() {
        return LONG_TERM.equals(name) ? "MEMORY.md" : "memory/" + name + ".md";
    }
}
