package io.reme.provider.offline;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The items of Critical Context found by pattern in every block: URLs, e-mail addresses, file paths
 * and file names, ticket ids ({@code ORD-4821}, {@code #512}), host names with a digit
 * ({@code orders-stg-2}), {@code host:port}, IP addresses, {@code key=value} settings, dotted, snake,
 * camel and upper-case identifiers, versions ({@code Kafka 4.4}), numbers with units
 * ({@code 30-minute}, {@code 16 MiB}, {@code $40}), dates and times, and quoted text.
 */
final class CriticalItems {
    private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("[.,;:!?)\\]}>。，；：！？]+$");

    /** A pattern and the characters of which the text must contain one for the pattern to be worth running. */
    private record ItemPattern(String needs, Pattern pattern) {
        boolean worthTrying(String text) {
            if (needs.isEmpty()) {
                return true;
            }
            for (int i = 0; i < needs.length(); i++) {
                if (text.indexOf(needs.charAt(i)) >= 0) {
                    return true;
                }
            }
            return false;
        }
    }

    private static ItemPattern item(String needs, String regex) {
        return new ItemPattern(needs, Pattern.compile(regex));
    }

    private static final String A = "(?<![A-Za-z0-9_./~-])";
    private static final String Z = "(?![A-Za-z0-9_])";
    private static final String MONTH = "(?:January|February|March|April|May|June|July|August|September|October"
            + "|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)";
    private static final String UNIT = "(?:ms|milliseconds?|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?"
            + "|days?|weeks?|months?|years?|yrs?|[KMGTP]i?B|[KMG]b|bytes?|%|percent|tokens?|req/s|rps|qps|tps"
            + "|records?|messages?|msgs?|partitions?|replicas?|brokers?|nodes?|cores?|threads?|users?|orders?"
            + "|rows?|[kMG]Hz|x|px|k|K|M|°C|°F|USD|EUR|GBP|CNY|JPY|dollars?|euros?)";
    private static final Pattern HOST_LIKE = Pattern.compile(A + "[a-z][a-z0-9]*(?:-[a-z0-9]+){1,16}(?![A-Za-z0-9_-])");
    private static final Pattern QUOTED = Pattern.compile("(?<![A-Za-z0-9])'[^'\\n]{3,200}?'(?![A-Za-z0-9])"
            + "|\"[^\"\\n]{3,200}?\"|`[^`\\n]{2,200}?`|“[^”\\n]{2,200}”|‘[^’\\n]{3,200}’|「[^」\\n]{1,200}」"
            + "|『[^』\\n]{1,200}』");
    private static final String DIGITS = "0123456789";
    private static final List<ItemPattern> ITEM_PATTERNS = List.of(
            // URLs and e-mail addresses
            item(":", "https?://[^\\s<>()\\[\\]{}\"'`]+"),
            item("@", "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+){1,16}"),
            // paths: absolute, Windows, relative with an extension, bare file names
            item("/", "(?<![A-Za-z0-9_.~/:-])(?:~|\\.{1,2})?/(?:[A-Za-z0-9_.@+-]+/){0,64}[A-Za-z0-9_.@+-]+/?"),
            item("\\", "(?<![A-Za-z0-9])[A-Za-z]:\\\\(?:[^\\\\\\s\"'<>|:*?]+\\\\){0,64}[^\\\\\\s\"'<>|:*?]*"),
            item("/", A + "[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+){1,64}\\.[A-Za-z0-9]{1,8}" + Z),
            item(
                    ".",
                    A + "[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+){0,16}\\.(?:java|kt|scala|py|js|ts|tsx|go|rs|rb|c|h|cpp"
                            + "|cs|xml|json|ya?ml|toml|properties|conf|cfg|ini|md|txt|log|sh|sql|csv|html|css|gradle|lock"
                            + "|env|pdf|docx?|xlsx?)" + Z),
            // tickets and references
            item("-", "(?<![A-Za-z0-9_-])[A-Z][A-Z0-9]{1,9}-\\d{1,7}" + Z),
            item("#", "(?<![A-Za-z0-9_])(?:(?:PR|MR|issue|ticket|bug) ?)?#\\d+" + Z),
            // hosts and addresses
            item(":", A + "[a-z][a-z0-9.-]*:\\d{2,5}(?![0-9])"),
            item(".", "(?<![0-9.])\\d{1,3}(?:\\.\\d{1,3}){3}(?::\\d{1,5})?(?![0-9.])"),
            item(
                    ".",
                    A + "[a-z0-9-]+(?:\\.[a-z0-9-]+){0,16}\\.(?:com|org|net|io|dev|app|ai|local|internal|svc|cloud"
                            + "|co|cn)" + Z),
            // settings and identifiers
            item(
                    "=",
                    A + "[A-Za-z_][A-Za-z0-9_.-]*=(?:\"[^\"\\n]*\"|'[^'\\n]*'"
                            + "|[^\\s,;'\"()\\[\\]{}]+(?:,[^\\s,;'\"()\\[\\]{}]+){0,32})"),
            item(".", A + "[a-z][a-z0-9_]*(?:\\.[A-Za-z0-9_]+){2,16}(?![A-Za-z0-9_]|\\.[A-Za-z0-9_])"),
            item("_", A + "[a-z][a-z0-9]*(?:_[a-z0-9]+){1,16}" + Z),
            item("_", "(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){1,16}" + Z),
            item("", "(?<![A-Za-z0-9_])[a-z]+(?:[A-Z][a-z0-9]*){1,16}" + Z),
            item("", "(?<![A-Za-z0-9_])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*){1,16}" + Z),
            item("(", "(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_.]*\\(\\)"),
            // versions
            item(
                    ".",
                    "(?<![A-Za-z0-9_.-])(?:[A-Z][A-Za-z+#-]* )?v?\\d+(?:\\.\\d+){1,3}(?:-[A-Za-z0-9.]+)?"
                            + "(?![A-Za-z0-9_]|\\.\\d)"),
            // numbers with units, money
            item(DIGITS, "(?<![A-Za-z0-9_.])\\d+(?:[.,]\\d+)?(?: ?|-)" + UNIT + "(?![A-Za-z0-9_])"),
            item("$€£¥", "[$€£¥]\\s?\\d[\\d,]*(?:\\.\\d+)?(?:\\s?(?:k|K|M|bn|million|billion)\\b)?"),
            item(DIGITS, "\\d+(?:\\.\\d+)?\\s?(?:分钟|小时|天|周|个月|年|秒|毫秒|元|万|亿|条|个)"),
            // dates and times
            item(DIGITS, "(?<![A-Za-z])" + MONTH + "\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?(?![0-9])"),
            item(DIGITS, "(?<![0-9])\\d{1,2}(?:st|nd|rd|th)? " + MONTH + "(?: \\d{4})?" + Z),
            item(
                    "-",
                    "(?<![0-9])\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?"
                            + "(?:Z|[+-]\\d{2}:?\\d{2})?)?(?![0-9])"),
            item("/", "(?<![0-9/])\\d{1,2}/\\d{1,2}/\\d{2,4}(?![0-9/])"),
            item(":", "(?<![0-9:])\\d{1,2}:\\d{2}(?::\\d{2})?(?: ?[ap]\\.?m\\.?| ?UTC| ?GMT)?(?![0-9])"),
            item(
                    "",
                    "(?i:by|on|until|before|after|next|this) (?:Monday|Tuesday|Wednesday|Thursday|Friday"
                            + "|Saturday|Sunday)" + Z),
            item("月", "\\d{4}年\\d{1,2}月(?:\\d{1,2}[日号])?|\\d{1,2}月\\d{1,2}[日号]"));

    private CriticalItems() {}

    /** The critical items of a text, in order of appearance, overlapping matches resolved to the earliest and longest. */
    static List<String> find(String text, boolean quotes) {
        List<int[]> spans = new ArrayList<>();
        for (ItemPattern pattern : ITEM_PATTERNS) {
            if (pattern.worthTrying(text)) {
                collect(pattern.pattern(), text, spans, false);
            }
        }
        if (text.indexOf('-') >= 0) {
            collect(HOST_LIKE, text, spans, true);
        }
        if (quotes) {
            collect(QUOTED, text, spans, false);
        }
        spans.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(b[1], a[1]));
        List<String> items = new ArrayList<>();
        int end = 0;
        for (int[] span : spans) {
            if (span[0] >= end) {
                String item = text.substring(span[0], span[1]);
                if (!(item.startsWith("'") || item.startsWith("\"") || item.startsWith("`"))) {
                    item = TRAILING_PUNCTUATION.matcher(item).replaceFirst("");
                }
                if (item.length() >= 2) {
                    items.add(item);
                }
                end = span[1];
            }
        }
        return items;
    }

    private static void collect(Pattern pattern, String text, List<int[]> spans, boolean needsDigit) {
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            if (m.end() > m.start() && (!needsDigit || m.group().chars().anyMatch(Character::isDigit))) {
                spans.add(new int[] {m.start(), m.end()});
            }
        }
    }
}
