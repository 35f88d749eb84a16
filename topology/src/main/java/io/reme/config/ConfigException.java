package io.reme.config;

import java.util.List;

/** Every problem found in the configuration, reported together so one restart fixes them all. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<String> problems;

    public ConfigException(List<String> problems) {
        super("invalid configuration:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
