package io.reme.session;

import io.reme.message.SafeId;

/** A session's identity and its key form {@code tenant/session}, used on topics and in stores. */
public record SessionKey(String tenant, String session) {
    public SessionKey {
        SafeId.require("tenant", tenant);
        SafeId.require("session", session);
    }

    public static SessionKey parse(String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("session key must be tenant/session, got '" + key + "'");
        }
        return new SessionKey(key.substring(0, slash), key.substring(slash + 1));
    }

    public String key() {
        return tenant + "/" + session;
    }

    /** The store key of the live message {@code seq}; zero padding keeps RocksDB's byte order = seq order. */
    public String messageKey(long seq) {
        return tenant + "/" + session + "/" + padded(seq);
    }

    /**
     * {@code n} as {@code %019d} would print it, without a {@link java.util.Formatter} (parsing the
     * pattern cost more than the rest of building a key, and keys are built several times a message).
     */
    static String padded(long n) {
        if (n < 0) {
            return String.format("%019d", n);
        }
        String digits = Long.toString(n);
        return digits.length() >= 19 ? digits : "0".repeat(19 - digits.length()) + digits;
    }

    @Override
    public String toString() {
        return key();
    }
}
