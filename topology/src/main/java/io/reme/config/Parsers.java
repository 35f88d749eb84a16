package io.reme.config;

import io.reme.message.SafeId;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** Value parsers with the validations the options share; each failure says what was expected. */
final class Parsers {
    private Parsers() {}

    static Function<String, String> text() {
        return value -> value == null ? "" : value;
    }

    static Function<String, Integer> intIn(int min, int max) {
        return value -> {
            int parsed;
            try {
                parsed = Integer.parseInt(value);
            } catch (NumberFormatException | NullPointerException e) {
                throw new IllegalArgumentException("expected an integer, got '" + value + "'");
            }
            if (parsed < min || parsed > max) {
                throw new IllegalArgumentException("must be between " + min + " and " + max + ", got " + parsed);
            }
            return parsed;
        };
    }

    static Function<String, Double> fraction() {
        return value -> {
            double parsed;
            try {
                parsed = Double.parseDouble(value);
            } catch (NumberFormatException | NullPointerException e) {
                throw new IllegalArgumentException("expected a number, got '" + value + "'");
            }
            if (!(parsed > 0 && parsed <= 1)) {
                throw new IllegalArgumentException("must be in (0, 1], got " + parsed);
            }
            return parsed;
        };
    }

    /** Durations as ISO-8601 ({@code PT15M}) or a number with a unit: {@code 500ms}, {@code 30s}, {@code 15m}, {@code 3h}, {@code 3d}; never negative. */
    static Function<String, Duration> duration() {
        return value -> {
            Duration parsed = anyDuration(value);
            if (parsed.isNegative()) {
                throw new IllegalArgumentException("expected a duration of zero or more, got '" + value + "'");
            }
            return parsed;
        };
    }

    /** Like {@link #duration()}, but zero is refused too. */
    static Function<String, Duration> positiveDuration() {
        return value -> {
            Duration parsed = anyDuration(value);
            if (parsed.isNegative() || parsed.isZero()) {
                throw new IllegalArgumentException("expected a duration greater than zero, got '" + value + "'");
            }
            return parsed;
        };
    }

    /** A duration within {@code [min, max]}. */
    static Function<String, Duration> durationIn(Duration min, Duration max) {
        return value -> {
            Duration parsed = anyDuration(value);
            if (parsed.compareTo(min) < 0 || parsed.compareTo(max) > 0) {
                throw new IllegalArgumentException(
                        "expected a duration between " + min + " and " + max + ", got '" + value + "'");
            }
            return parsed;
        };
    }

    private static Duration anyDuration(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("expected a duration such as 30s, 15m, 3d or PT15M");
        }
        String lower = value.toLowerCase(Locale.ROOT);
        try {
            if (lower.startsWith("p")) {
                return Duration.parse(value.toUpperCase(Locale.ROOT));
            }
            if (lower.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(lower.substring(0, lower.length() - 2)));
            }
            long amount = Long.parseLong(lower.substring(0, lower.length() - 1));
            return switch (lower.charAt(lower.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                case 'd' -> Duration.ofDays(amount);
                default -> throw new IllegalArgumentException("unknown unit");
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "expected a duration such as 30s, 15m, 3d or PT15M, got '" + value + "'");
        }
    }

    /** An instant in UTC, ISO-8601 with an offset (2000-01-01T00:00:00Z). */
    static Function<String, Instant> instant() {
        return value -> {
            try {
                return OffsetDateTime.parse(value).toInstant();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("expected an ISO-8601 time with an offset such as "
                        + "2000-01-01T00:00:00Z, got '" + value + "'");
            }
        };
    }

    static Function<String, ZoneId> zone() {
        return value -> {
            try {
                return ZoneId.of(value);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "expected a time zone such as UTC or Europe/Berlin, got '" + value + "'");
            }
        };
    }

    static Function<String, Boolean> bool() {
        return value -> {
            if ("true".equalsIgnoreCase(value)) {
                return true;
            }
            if ("false".equalsIgnoreCase(value)) {
                return false;
            }
            throw new IllegalArgumentException("expected true or false, got '" + value + "'");
        };
    }

    static Function<String, String> oneOf(String... allowed) {
        return value -> {
            for (String option : allowed) {
                if (option.equals(value)) {
                    return value;
                }
            }
            throw new IllegalArgumentException(
                    "must be one of " + String.join(", ", allowed) + ", got '" + value + "'");
        };
    }

    /** Comma-separated tenant ids (each in the safe id alphabet), normalised to "a,b"; empty for none. */
    static Function<String, String> tenantList() {
        return value -> {
            if (value == null || value.isBlank()) {
                return "";
            }
            List<String> tenants = new ArrayList<>();
            for (String part : value.split(",")) {
                tenants.add(SafeId.require("tenant", part.trim()));
            }
            return String.join(",", tenants);
        };
    }
}
