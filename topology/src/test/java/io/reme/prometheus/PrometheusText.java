package io.reme.prometheus;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of a Prometheus text-format scrape, keyed {@code name{a="x",b="y"}} with labels sorted
 * by name (so a test can name a series without knowing the exporter's label order), or {@code name}
 * for a series without labels.
 */
public final class PrometheusText {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)(\\s+\\d+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    private final Map<String, Double> samples;

    private PrometheusText(Map<String, Double> samples) {
        this.samples = samples;
    }

    public static PrometheusText parse(String text) {
        Map<String, Double> samples = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line.strip());
            if (!sample.matches()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new TreeMap<>();
            if (sample.group(3) != null) {
                Matcher label = LABEL.matcher(sample.group(3));
                int end = 0;
                while (label.find() && label.start() == end) {
                    labels.put(label.group(1), label.group(2));
                    end = label.end();
                }
                if (end != sample.group(3).length()) {
                    throw new IllegalArgumentException("unreadable labels: " + line);
                }
            }
            double value = Double.parseDouble(sample.group(4).replace("Inf", "Infinity"));
            if (samples.put(key(sample.group(1), labels), value) != null) {
                throw new IllegalArgumentException("series repeated: " + line);
            }
        }
        return new PrometheusText(samples);
    }

    /** The series key for {@code name} and {@code labels} as "k=v" pairs. */
    public static String series(String name, String... labels) {
        Map<String, String> sorted = new TreeMap<>();
        for (String label : labels) {
            int eq = label.indexOf('=');
            sorted.put(label.substring(0, eq), label.substring(eq + 1));
        }
        return key(name, sorted);
    }

    private static String key(String name, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return name;
        }
        StringBuilder key = new StringBuilder(name).append('{');
        labels.forEach((k, v) -> key.append(k).append("=\"").append(v).append("\","));
        key.setLength(key.length() - 1);
        return key.append('}').toString();
    }

    /** The sample's value; fails if the series is absent, so a renamed metric cannot pass as zero. */
    public double value(String name, String... labels) {
        String key = series(name, labels);
        Double value = samples.get(key);
        if (value == null) {
            throw new AssertionError("no series " + key + " in the scrape; series of that name: "
                    + samples.keySet().stream().filter(k -> k.startsWith(name)).toList());
        }
        return value;
    }

    public Map<String, Double> samples() {
        return samples;
    }
}
