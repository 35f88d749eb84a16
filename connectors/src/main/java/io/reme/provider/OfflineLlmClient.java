package io.reme.provider;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The embedded provider used when no LLM is configured: deterministic, no network, and labelled
 * ({@link #id()} is {@value #ID}; every summary carries {@value #SUMMARY_MARKER} as the first line of
 * its {@code ## Goal} section and every diary section {@value #DIARY_MARKER} under its heading). It
 * does not write prose; it picks sentences and identifiers out of the conversation with the
 * heuristics below, so what it keeps is verbatim.
 *
 * <h2>Reading the messages</h2>
 * <ul>
 * <li>User and assistant text is split into lines, list items and sentences (on {@code . ! ?}
 * followed by a space, and on {@code 。！？}); inline lists {@code 1) a, 2) b} become items.</li>
 * <li>Tool calls, tool results, thinking and system text never contribute sentences, only the
 * critical items extracted from them (at most {@value #MAX_TOOL_ITEMS} per block) and, for a tool's
 * output, its first and last few lines that report an error, so an output is never copied whole.</li>
 * <li>Of a very long block only the first and the last {@value #MAX_SCAN_CHARS} characters are read.</li>
 * </ul>
 *
 * <h2>Where a sentence goes</h2>
 * A leading label wins ({@code Goal:}, {@code Constraint:}, {@code Preference:}, {@code Decision:},
 * {@code Done:}, {@code In progress:}, {@code Blocked:}, {@code Next:}/{@code Next steps:},
 * {@code Steps:}, {@code Todo:}, {@code Plan:}, and the Chinese 目标/约束/偏好/决定/完成/进行中/阻塞/下一步/计划;
 * {@code Remember:}, {@code Note:} are dropped without choosing); list items under a line ending in a
 * colon take that line's section; otherwise the first rule that matches (each also has a few Chinese
 * keywords, e.g. 阻塞, 决定, 必须/喜欢, 目标/请, 已完成, 正在, 下一步):
 * <ol>
 * <li>Blocked: "blocked", "waiting for/on", "cannot proceed", "stuck".</li>
 * <li>Key Decisions: "decision", "decided", "let's", "we'll/we will", "chose", "agreed", "going with".</li>
 * <li>Constraints &amp; Preferences (user only): "must", "never", "always", "cannot", "don't",
 * "prefer", "constraint", "deadline", "budget", and statements about the user ("my X is",
 * "I'm Alice").</li>
 * <li>Goal (user only): "goal", "I want/need", "I'd like", "we are", "please"; when the summary
 * would otherwise have no goal, the first sentence of the first user message.</li>
 * <li>Done: "done", "fixed", "updated", "deployed", "booked", "completed", "merged", "finished",
 * "resolved", "implemented".</li>
 * <li>In Progress: "working on", "in progress", "next I will", "currently".</li>
 * <li>Next Steps: "next", "todo", "follow-up", "then"; any other numbered item.</li>
 * </ol>
 * An unplaced sentence that mentions an error ("error", "exception", "failed", "timeout"…) goes to
 * Critical Context whole. Critical Context also gets the items found by pattern in every block: URLs,
 * e-mail addresses, file paths and file names, ticket ids ({@code ORD-4821}, {@code #512}),
 * host names with a digit ({@code orders-stg-2}), {@code host:port}, IP addresses, {@code key=value}
 * settings, dotted, snake, camel and upper-case identifiers, versions ({@code Kafka 4.4}), numbers
 * with units ({@code 30-minute}, {@code 16 MiB}, {@code $40}), dates and times, and quoted text. An
 * item already contained in an earlier one is not repeated. Each tool call the task names as
 * unanswered gets its own item, {@code Unanswered tool call <id> (<tool>): its result never came.}
 *
 * <h2>Merging and budget</h2>
 * The previous summary's sections are parsed with {@link SummaryFormat#section} and its items kept
 * first, in order; new items are appended, skipping duplicates (compared case-insensitively, ignoring
 * spacing and trailing punctuation). A previous summary without the structure is read like user text.
 * Sentences are cut at {@value #MAX_ITEM_CHARS} characters. If the
 * result is over {@code maxTokens}, the oldest item of the longest section (in tokens) is dropped
 * until it fits; headings and the marker are never dropped, so a budget smaller than the empty
 * structure cannot be met.
 *
 * <h2>Diary</h2>
 * The day's document (started with a {@code # <date>} heading) gets a {@code ## HH:MM–HH:MM <session>}
 * section (UTC times of the first and last message; bullets are added to it if it already exists) with
 * one labelled bullet per goal, decision, constraint, preference or user fact, done item, blocker, next
 * step and critical item. A bullet whose text the document already contains is left out, as is a
 * critical item another bullet contains, so running the same task again adds nothing. Text is added
 * through {@link DocumentEditor#edit} anchored on the shortest run of final lines that occurs once, or
 * written whole when the document is new. Statements by the user that read as durable ("I prefer",
 * "I like", "I always/never", "my X is", "I'm Alice", "we must", 我喜欢, 我们必须…) are added to
 * {@code MEMORY.md} (created with {@code # Long-term memory}) under {@code ## Preferences and
 * constraints}, once each. Small talk gives {@code [SILENT]}: no goal is guessed for a diary.
 *
 * <p>Being deterministic, a retry gives the same answer, so {@link SummaryTask#retryReason()} is not
 * used; nor is the task's language: content is kept in the language it was written in, and the
 * headings are always the English ones {@link SummaryFormat} checks.
 *
 * <p>Thread-safe and stateless; token counting uses the {@link TokenCounter} given to the
 * constructor ({@code o200k_base} by default).
 */
public final class OfflineLlmClient implements LlmClient {
    public static final String ID = "offline-extractive";
    public static final String SUMMARY_MARKER = "_(offline extractive summary, no LLM)_";
    public static final String DIARY_MARKER = "_(offline extractive notes, no LLM)_";
    static final String MEMORY_HEADING = "# Long-term memory";
    static final String MEMORY_SECTION = "## Preferences and constraints";
    static final int MAX_ITEM_CHARS = 300;
    static final int MAX_TOOL_ITEMS = 20;
    private static final int MAX_ERROR_LINES = 8;
    private static final int MAX_ERROR_LINE_CHARS = 200;
    private static final int MAX_SCAN_CHARS = 64 * 1024;
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    private final TokenCounter tokens;

    /** Counts tokens with {@code o200k_base}. */
    public OfflineLlmClient() {
        this(DefaultTokens.COUNTER);
    }

    /** Counts tokens (for {@link SummaryTask#maxTokens()}) with {@code tokens}, normally the counter the caller validates with. */
    public OfflineLlmClient(TokenCounter tokens) {
        this.tokens = Objects.requireNonNull(tokens, "tokens");
    }

    private static final class DefaultTokens {
        static final TokenCounter COUNTER = TokenCounter.forEncoding("o200k_base", 0);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<MemoryCandidate> extractMemories(ExtractTask task) {
        return OfflineMemoryRules.extract(task);
    }

    @Override
    public MergeDecision mergeMemory(MergeTask task) {
        return OfflineMemoryRules.merge(task);
    }

    @Override
    public String summarize(SummaryTask task) {
        Extraction extraction = new Extraction();
        extraction.mergePrevious(task.previousSummary());
        for (Message message : task.messages()) {
            extraction.add(message);
        }
        extraction.fallBackToFirstRequest();
        for (String id : task.unansweredCalls()) {
            extraction
                    .sections
                    .get(Kind.CONTEXT)
                    .add("Unanswered tool call " + id + toolName(task.messages(), id) + ": its result never came.");
        }
        return fit(extraction.sections, task.maxTokens());
    }

    /** " (name)" of the tool call {@code id} in {@code messages}, or nothing if it is not there. */
    private static String toolName(List<Message> messages, String id) {
        for (Message message : messages) {
            for (Block block : message.content()) {
                if (block instanceof Block.ToolUse use && use.id().equals(id)) {
                    return " (" + use.name() + ")";
                }
            }
        }
        return "";
    }

    @Override
    public String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException {
        if (task.messages().isEmpty()) {
            return "[SILENT]";
        }
        Extraction extraction = new Extraction();
        for (Message message : task.messages()) {
            extraction.add(message);
        }
        try {
            int facts = writeDiary(task, editor, extraction);
            int promoted = promote(editor, extraction.durable.list);
            if (facts == 0 && promoted == 0) {
                return "[SILENT]";
            }
            return "offline: " + facts + (facts == 1 ? " fact" : " facts") + " added to " + task.dailyDocument() + ", "
                    + promoted + " promoted to " + DocumentEditor.LONG_TERM;
        } catch (IllegalArgumentException e) {
            throw new LlmException("offline diary update failed: " + e.getMessage(), true, e);
        }
    }

    // ---------------------------------------------------------------- summary rendering and budget

    private String fit(Map<Kind, Items> sections, int maxTokens) {
        String summary = render(sections);
        if (maxTokens <= 0) {
            return summary;
        }
        int total = tokens.count(summary);
        if (total <= maxTokens) {
            return summary;
        }
        Map<Kind, List<Integer>> costs = new EnumMap<>(Kind.class);
        Map<Kind, Integer> sectionCost = new EnumMap<>(Kind.class);
        for (Kind kind : Kind.values()) {
            List<Integer> itemCosts = new ArrayList<>();
            int sum = 0;
            for (String item : sections.get(kind).list) {
                int cost = tokens.count("- " + item + "\n");
                itemCosts.add(cost);
                sum += cost;
            }
            costs.put(kind, itemCosts);
            sectionCost.put(kind, sum);
        }
        int estimate = total;
        while (total > maxTokens) {
            Kind longest = null;
            for (Kind kind : Kind.values()) {
                if (!sections.get(kind).list.isEmpty()
                        && (longest == null || sectionCost.get(kind) > sectionCost.get(longest))) {
                    longest = kind;
                }
            }
            if (longest == null) {
                break;
            }
            sections.get(longest).removeFirst();
            int cost = costs.get(longest).remove(0);
            sectionCost.put(longest, sectionCost.get(longest) - cost);
            estimate -= cost;
            if (estimate <= maxTokens) {
                summary = render(sections);
                total = tokens.count(summary);
                estimate = total;
            }
        }
        return render(sections);
    }

    private static String render(Map<Kind, Items> sections) {
        StringBuilder out = new StringBuilder();
        out.append("## Goal\n").append(SUMMARY_MARKER).append('\n');
        bullets(out, sections.get(Kind.GOAL).list, false);
        out.append("\n## Constraints & Preferences\n");
        bullets(out, sections.get(Kind.CONSTRAINT).list, false);
        out.append("\n## Progress\n### Done\n");
        bullets(out, sections.get(Kind.DONE).list, false);
        out.append("### In Progress\n");
        bullets(out, sections.get(Kind.IN_PROGRESS).list, false);
        out.append("### Blocked\n");
        bullets(out, sections.get(Kind.BLOCKED).list, false);
        out.append("\n## Key Decisions\n");
        bullets(out, sections.get(Kind.DECISION).list, false);
        out.append("\n## Next Steps\n");
        bullets(out, sections.get(Kind.NEXT).list, true);
        out.append("\n## Critical Context\n");
        bullets(out, sections.get(Kind.CONTEXT).list, false);
        return out.toString();
    }

    private static void bullets(StringBuilder out, List<String> items, boolean numbered) {
        if (items.isEmpty()) {
            out.append("(none)\n");
            return;
        }
        int n = 1;
        for (String item : items) {
            out.append(numbered ? (n++) + ". " : "- ").append(item).append('\n');
        }
    }

    // ---------------------------------------------------------------- diary

    private int writeDiary(DiaryTask task, DocumentEditor editor, Extraction extraction) {
        String document = task.dailyDocument();
        String current = editor.read(document);
        String known = normalize(current);
        List<String> bullets = new ArrayList<>();
        StringBuilder added = new StringBuilder();
        List<String> context = extraction.sections.get(Kind.CONTEXT).list.stream()
                .map(OfflineLlmClient::normalize)
                .toList();
        for (Kind kind :
                List.of(Kind.GOAL, Kind.DECISION, Kind.CONSTRAINT, Kind.DONE, Kind.BLOCKED, Kind.NEXT, Kind.CONTEXT)) {
            for (String item : extraction.sections.get(kind).list) {
                String body = normalize(item);
                if (kind == Kind.CONTEXT
                        && context.stream()
                                .anyMatch(other -> other.length() > body.length() && containsWord(other, body))) {
                    continue;
                }
                if (body.isEmpty() || known.contains(body) || added.indexOf(body) >= 0) {
                    continue;
                }
                bullets.add("- " + diaryLabel(kind, item) + item);
                added.append(body).append('\n');
            }
        }
        if (bullets.isEmpty()) {
            return 0;
        }
        String lines = String.join("\n", bullets) + "\n";
        Instant first = task.messages().stream()
                .map(Message::time)
                .min(Comparator.naturalOrder())
                .orElseThrow();
        Instant last = task.messages().stream()
                .map(Message::time)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        String heading = "## " + CLOCK.format(first) + "–" + CLOCK.format(last) + " " + task.session();
        if (current.isBlank()) {
            editor.write(document, "# " + task.date() + "\n\n" + heading + "\n" + DIARY_MARKER + "\n" + lines);
        } else if (lineIndex(current, heading) >= 0) {
            insertAtSectionEnd(editor, document, current, lineIndex(current, heading), lines);
        } else {
            append(editor, document, current, heading + "\n" + DIARY_MARKER + "\n" + lines);
        }
        return bullets.size();
    }

    private static String diaryLabel(Kind kind, String item) {
        return switch (kind) {
            case GOAL -> "Goal: ";
            case DECISION -> "Decision: ";
            case CONSTRAINT ->
                PREFERENCE.matcher(item).find()
                        ? "Preference: "
                        : CONSTRAINT.matcher(item).find() ? "Constraint: " : "Fact: ";
            case DONE -> "Done: ";
            case BLOCKED -> "Blocked: ";
            case NEXT -> "Next: ";
            default -> "Context: ";
        };
    }

    private static int promote(DocumentEditor editor, List<String> durable) {
        if (durable.isEmpty()) {
            return 0;
        }
        String document = DocumentEditor.LONG_TERM;
        String current = editor.read(document);
        Set<String> known = new HashSet<>();
        for (String line : current.split("\n", -1)) {
            Matcher bullet = BULLET.matcher(line.strip());
            if (bullet.matches()) {
                known.add(key(bullet.group(1)));
            }
        }
        List<String> bullets = new ArrayList<>();
        for (String fact : durable) {
            if (known.add(key(fact))) {
                bullets.add("- " + fact);
            }
        }
        if (bullets.isEmpty()) {
            return 0;
        }
        String lines = String.join("\n", bullets) + "\n";
        int section = lineIndex(current, MEMORY_SECTION);
        if (current.isBlank()) {
            editor.write(document, MEMORY_HEADING + "\n\n" + MEMORY_SECTION + "\n" + lines);
        } else if (section >= 0) {
            insertAtSectionEnd(editor, document, current, section, lines);
        } else {
            append(editor, document, current, MEMORY_SECTION + "\n" + lines);
        }
        return bullets.size();
    }

    /** The offset of the line equal to {@code line} (ignoring surrounding spaces), or -1. */
    private static int lineIndex(String text, String line) {
        int offset = 0;
        for (String candidate : text.split("\n", -1)) {
            if (candidate.strip().equals(line)) {
                return offset;
            }
            offset += candidate.length() + 1;
        }
        return -1;
    }

    /** Inserts {@code lines} after the last non-blank line of the section whose heading starts at {@code headingAt}. */
    private static void insertAtSectionEnd(
            DocumentEditor editor, String document, String current, int headingAt, String lines) {
        int headingEnd = current.indexOf('\n', headingAt);
        if (headingEnd < 0) {
            append(editor, document, current, lines);
            return;
        }
        int level = headingLevel(current.substring(headingAt, headingEnd).strip());
        int end = current.length();
        int pos = headingEnd + 1;
        while (pos < current.length()) {
            int next = current.indexOf('\n', pos);
            String line =
                    current.substring(pos, next < 0 ? current.length() : next).strip();
            int lineLevel = headingLevel(line);
            if (lineLevel > 0 && lineLevel <= level) {
                end = pos;
                break;
            }
            pos = next < 0 ? current.length() : next + 1;
        }
        int insertAt = end;
        while (insertAt > headingEnd + 1 && Character.isWhitespace(current.charAt(insertAt - 1))) {
            insertAt--;
        }
        String addition = "\n" + lines;
        if (insertAt < current.length() && current.charAt(insertAt) == '\n') {
            insertAt++;
            addition = lines;
        }
        insertAt(editor, document, current, insertAt, addition);
    }

    private static int headingLevel(String line) {
        int level = 0;
        while (level < line.length() && line.charAt(level) == '#') {
            level++;
        }
        return level > 0 && level < line.length() && line.charAt(level) == ' ' ? level : 0;
    }

    private static void append(DocumentEditor editor, String document, String current, String text) {
        String separator = current.endsWith("\n\n") ? "" : current.endsWith("\n") ? "\n" : "\n\n";
        insertAt(editor, document, current, current.length(), separator + text);
    }

    /**
     * Inserts {@code addition} at {@code offset} through an exact-match edit whose anchor is the
     * shortest run of whole lines ending at {@code offset} that occurs once in the document.
     */
    private static void insertAt(DocumentEditor editor, String document, String current, int offset, String addition) {
        int start = offset;
        while (start > 0) {
            start = current.lastIndexOf('\n', start - 2) + 1;
            String anchor = current.substring(start, offset);
            if (!anchor.isBlank() && occursOnce(current, anchor)) {
                editor.edit(document, anchor, anchor + addition);
                return;
            }
            if (start == 0) {
                break;
            }
        }
        editor.write(document, current.substring(0, offset) + addition + current.substring(offset));
    }

    private static boolean occursOnce(String text, String part) {
        int first = text.indexOf(part);
        return first >= 0 && text.indexOf(part, first + 1) < 0;
    }

    // ---------------------------------------------------------------- extraction

    private enum Kind {
        GOAL,
        CONSTRAINT,
        DONE,
        IN_PROGRESS,
        BLOCKED,
        DECISION,
        NEXT,
        CONTEXT
    }

    private enum Source {
        USER,
        ASSISTANT,
        PREVIOUS
    }

    /** An ordered list without duplicates (by {@link #key}). */
    private static final class Items {
        final List<String> list = new ArrayList<>();
        private final List<String> keys = new ArrayList<>();
        private final Set<String> keySet = new HashSet<>();
        private final boolean skipContained;

        Items(boolean skipContained) {
            this.skipContained = skipContained;
        }

        void add(String item) {
            String text = cut(clean(item), MAX_ITEM_CHARS);
            if (text.isEmpty()) {
                return;
            }
            String key = key(text);
            if (key.isEmpty() || keySet.contains(key)) {
                return;
            }
            if (skipContained) {
                for (String existing : keys) {
                    if (containsWord(existing, key)) {
                        return;
                    }
                }
            }
            keySet.add(key);
            keys.add(key);
            list.add(text);
        }

        void addVerbatim(String item) {
            String key = key(item);
            if (!key.isEmpty() && keySet.add(key)) {
                keys.add(key);
                list.add(item.strip());
            }
        }

        void removeFirst() {
            keySet.remove(keys.remove(0));
            list.remove(0);
        }
    }

    private static final class Extraction {
        final Map<Kind, Items> sections = new EnumMap<>(Kind.class);
        final Items durable = new Items(false);
        private String firstRequest;

        Extraction() {
            for (Kind kind : Kind.values()) {
                sections.put(kind, new Items(kind == Kind.CONTEXT));
            }
        }

        void mergePrevious(String previous) {
            if (previous.isBlank()) {
                return;
            }
            boolean structured = false;
            for (Kind kind : Kind.values()) {
                String body = switch (kind) {
                    case GOAL -> SummaryFormat.section(previous, "## ", "Goal");
                    case CONSTRAINT -> SummaryFormat.section(previous, "## ", "Constraints & Preferences");
                    case DECISION -> SummaryFormat.section(previous, "## ", "Key Decisions");
                    case NEXT -> SummaryFormat.section(previous, "## ", "Next Steps");
                    case CONTEXT -> SummaryFormat.section(previous, "## ", "Critical Context");
                    case DONE, IN_PROGRESS, BLOCKED -> {
                        String progress = SummaryFormat.section(previous, "## ", "Progress");
                        yield progress == null
                                ? null
                                : SummaryFormat.section(
                                        progress,
                                        "### ",
                                        kind == Kind.DONE
                                                ? "Done"
                                                : kind == Kind.IN_PROGRESS ? "In Progress" : "Blocked");
                    }
                };
                if (body == null) {
                    continue;
                }
                structured = true;
                for (String line : body.split("\n")) {
                    String item = line.strip();
                    Matcher list = LIST_LINE.matcher(item);
                    if (list.matches()) {
                        item = list.group(2).strip();
                    }
                    if (item.isEmpty()
                            || NONE.matcher(item).matches()
                            || item.startsWith("_(offline")
                            || headingLevel(item) > 0) {
                        continue;
                    }
                    sections.get(kind).addVerbatim(item);
                }
            }
            if (!structured) {
                text(previous, Source.PREVIOUS);
            }
        }

        void add(Message message) {
            for (Block block : message.content()) {
                if (block instanceof Block.Text text) {
                    if (message.role() == Role.USER) {
                        text(text.text(), Source.USER);
                    } else if (message.role() == Role.ASSISTANT) {
                        text(text.text(), Source.ASSISTANT);
                    } else {
                        raw(text.text(), true, false);
                    }
                } else if (block instanceof Block.Thinking thinking) {
                    raw(thinking.thinking(), true, false);
                } else if (block instanceof Block.ToolUse use) {
                    raw(use.input(), false, false);
                } else if (block instanceof Block.ToolResult result) {
                    raw(result.output(), false, true);
                } else if (block instanceof Block.Image image && image.url() != null) {
                    sections.get(Kind.CONTEXT).add(image.url());
                }
            }
        }

        void fallBackToFirstRequest() {
            if (sections.get(Kind.GOAL).list.isEmpty() && firstRequest != null) {
                sections.get(Kind.GOAL).add(firstRequest);
            }
        }

        /**
         * Text that is not conversation (tool calls and results, thinking, system): its critical items
         * and, for a tool's output, the first and last few lines that report an error.
         */
        private void raw(String text, boolean quotes, boolean errorLines) {
            String scanned = scanned(text);
            Items context = sections.get(Kind.CONTEXT);
            if (errorLines) {
                List<String> errors = new ArrayList<>();
                for (String line : scanned.split("\\R")) {
                    if (ERROR.matcher(line).find()) {
                        errors.add(cut(line.strip(), MAX_ERROR_LINE_CHARS));
                    }
                }
                int half = MAX_ERROR_LINES / 2;
                for (int i = 0; i < errors.size(); i++) {
                    if (i < half || i >= errors.size() - half) {
                        context.add(errors.get(i));
                    }
                }
            }
            int added = 0;
            for (String item : criticalItems(scanned, quotes)) {
                if (added++ >= MAX_TOOL_ITEMS) {
                    break;
                }
                context.add(item);
            }
        }

        private void text(String text, Source source) {
            Kind listKind = null;
            for (String rawLine : scanned(text).split("\\R")) {
                String line = rawLine.strip();
                if (line.isEmpty()) {
                    continue;
                }
                line = MARKDOWN_HEADING.matcher(line).replaceFirst("");
                Matcher list = LIST_LINE.matcher(line);
                boolean listItem = list.matches();
                boolean numbered = listItem && list.group(1).matches("\\d.*");
                if (listItem) {
                    line = list.group(2);
                }
                Kind lastKind = null;
                for (String sentence : sentences(line)) {
                    lastKind = sentence(sentence, source, listItem ? listKind : null, numbered);
                }
                if (!listItem) {
                    listKind = line.endsWith(":") || line.endsWith("：") ? lastKind : null;
                }
            }
        }

        /** Handles one sentence, splitting an inline numbered list; returns the section it went to. */
        private Kind sentence(String sentence, Source source, Kind inherited, boolean numbered) {
            Matcher marker = INLINE_NUMBER.matcher(sentence);
            List<int[]> markers = new ArrayList<>();
            int expected = 1;
            while (marker.find()) {
                if (Integer.parseInt(marker.group(1)) == expected) {
                    markers.add(new int[] {marker.start(), marker.end()});
                    expected++;
                }
            }
            if (markers.size() < 2) {
                return place(sentence, source, inherited, numbered);
            }
            String prefix = sentence.substring(0, markers.get(0)[0]);
            Kind prefixKind = place(prefix, source, inherited, false);
            Kind itemKind = prefixKind != null ? prefixKind : inherited;
            for (int i = 0; i < markers.size(); i++) {
                int end = i + 1 < markers.size() ? markers.get(i + 1)[0] : sentence.length();
                place(sentence.substring(markers.get(i)[1], end), source, itemKind, true);
            }
            return prefixKind;
        }

        private Kind place(String sentence, Source source, Kind inherited, boolean numbered) {
            String text = sentence.strip();
            if (text.isEmpty()) {
                return null;
            }
            Kind kind = null;
            String body = text;
            Matcher label = LABEL.matcher(text);
            if (label.lookingAt()) {
                kind = labelKind(label.group(1));
                body = text.substring(label.end());
            }
            boolean fromUser = source != Source.ASSISTANT;
            if (kind == null) {
                kind = inherited;
            }
            if (kind == null) {
                kind = classify(body, fromUser);
            }
            boolean durable = source == Source.USER && DURABLE.matcher(body).find();
            if (kind == null && durable) {
                kind = Kind.CONSTRAINT;
            }
            if (kind == null && numbered) {
                kind = Kind.NEXT;
            }
            if (source == Source.USER
                    && firstRequest == null
                    && kind != Kind.CONSTRAINT
                    && !clean(body).isEmpty()) {
                firstRequest = body;
            }
            if (durable && kind == Kind.CONSTRAINT) {
                this.durable.add(body);
            }
            if (kind != null) {
                sections.get(kind).add(body);
            } else if (ERROR.matcher(body).find()) {
                sections.get(Kind.CONTEXT).add(body);
            }
            for (String item : criticalItems(text, true)) {
                sections.get(Kind.CONTEXT).add(item);
            }
            return kind;
        }
    }

    private static Kind classify(String sentence, boolean fromUser) {
        if (BLOCKED.matcher(sentence).find()) {
            return Kind.BLOCKED;
        } else if (DECISION.matcher(sentence).find()) {
            return Kind.DECISION;
        } else if (fromUser && CONSTRAINT.matcher(sentence).find()) {
            return Kind.CONSTRAINT;
        } else if (fromUser && GOAL.matcher(sentence).find()) {
            return Kind.GOAL;
        } else if (DONE.matcher(sentence).find()) {
            return Kind.DONE;
        } else if (IN_PROGRESS.matcher(sentence).find()) {
            return Kind.IN_PROGRESS;
        } else if (NEXT.matcher(sentence).find()) {
            return Kind.NEXT;
        }
        return null;
    }

    private static Kind labelKind(String label) {
        String l = label.toLowerCase(Locale.ROOT);
        if (l.startsWith("goal") || l.startsWith("objective") || l.startsWith("aim") || l.equals("目标")) {
            return Kind.GOAL;
        } else if (l.startsWith("constraint")
                || l.startsWith("preference")
                || l.startsWith("requirement")
                || l.equals("约束")
                || l.equals("限制")
                || l.equals("要求")
                || l.equals("偏好")) {
            return Kind.CONSTRAINT;
        } else if (l.startsWith("decision") || l.equals("decided") || l.equals("决定") || l.equals("决策")) {
            return Kind.DECISION;
        } else if (l.equals("done")
                || l.equals("completed")
                || l.equals("fixed")
                || l.equals("已完成")
                || l.equals("完成")) {
            return Kind.DONE;
        } else if (l.equals("in progress") || l.equals("wip") || l.equals("进行中")) {
            return Kind.IN_PROGRESS;
        } else if (l.startsWith("blocked") || l.startsWith("blocker") || l.equals("阻塞")) {
            return Kind.BLOCKED;
        } else if (l.equals("remember") || l.equals("note") || l.equals("fyi") || l.equals("reminder")) {
            return null;
        }
        return Kind.NEXT;
    }

    // ---------------------------------------------------------------- text helpers

    /** The text, or of a very long one its beginning and end ({@value #MAX_SCAN_CHARS} characters each). */
    private static String scanned(String text) {
        return text.length() <= 2 * MAX_SCAN_CHARS
                ? text
                : text.substring(0, MAX_SCAN_CHARS) + "\n" + text.substring(text.length() - MAX_SCAN_CHARS);
    }

    /** Splits a line into sentences on {@code . ! ?} followed by a space (not after a list number) and after {@code 。！？}. */
    static List<String> sentences(String line) {
        List<String> out = new ArrayList<>();
        for (String part : SENTENCE_END.split(line)) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }

    /** The critical items of a text, in order of appearance, overlapping matches resolved to the earliest and longest. */
    static List<String> criticalItems(String text, boolean quotes) {
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

    /** Collapses spaces, removes list markers and trailing sentence punctuation. */
    static String clean(String text) {
        String s = WHITESPACE.matcher(text).replaceAll(" ").strip();
        Matcher list = LIST_LINE.matcher(s);
        if (list.matches()) {
            s = list.group(2).strip();
        }
        return TRAILING_SENTENCE_PUNCTUATION.matcher(s).replaceFirst("");
    }

    /** The comparison form of an item: cleaned and lower case. */
    static String key(String text) {
        return clean(text).toLowerCase(Locale.ROOT);
    }

    /** Lower case with spacing collapsed and trailing punctuation removed, for containment checks against a document. */
    private static String normalize(String text) {
        return TRAILING_SENTENCE_PUNCTUATION
                .matcher(WHITESPACE.matcher(text).replaceAll(" ").strip())
                .replaceFirst("")
                .toLowerCase(Locale.ROOT);
    }

    private static boolean containsWord(String haystack, String needle) {
        int from = 0;
        while (true) {
            int at = haystack.indexOf(needle, from);
            if (at < 0) {
                return false;
            }
            int after = at + needle.length();
            boolean startOk = at == 0
                    || !Character.isLetterOrDigit(haystack.charAt(at - 1))
                    || !Character.isLetterOrDigit(needle.charAt(0));
            boolean endOk = after == haystack.length()
                    || !Character.isLetterOrDigit(haystack.charAt(after))
                    || !Character.isLetterOrDigit(needle.charAt(needle.length() - 1));
            if (startOk && endOk) {
                return true;
            }
            from = at + 1;
        }
    }

    static String cut(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int at = text.lastIndexOf(' ', max);
        if (at < max / 2) {
            at = max;
        }
        if (Character.isHighSurrogate(text.charAt(at - 1))) {
            at--;
        }
        return text.substring(0, at).strip() + "…";
    }

    // ---------------------------------------------------------------- patterns

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern NONE = Pattern.compile("(?i)\\(?none\\)?\\.?");
    private static final Pattern BULLET = Pattern.compile("[-*+•]\\s+(.*)");
    private static final Pattern LIST_LINE = Pattern.compile("(\\d{1,3}[.)]|[-*+•])\\s+(.*)", Pattern.DOTALL);
    private static final Pattern MARKDOWN_HEADING = Pattern.compile("^#{1,6}\\s+");
    private static final Pattern SENTENCE_END =
            Pattern.compile("(?<=[.!?])(?<!(?:^|[\\s:(（])\\d{1,2}\\.)\\s+|(?<=[。！？])\\s*");
    private static final Pattern INLINE_NUMBER = Pattern.compile("(?:^|(?<=[\\s:：(（,，;；]))(\\d{1,2})[.)）]\\s+");
    private static final Pattern TRAILING_SENTENCE_PUNCTUATION = Pattern.compile("[\\s.,;:。，；：、]+$");
    private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("[.,;:!?)\\]}>。，；：！？]+$");

    private static final Pattern LABEL = Pattern.compile("(?i)(goal|objective|aim|constraints?|preferences?"
            + "|requirements?|decisions?|decided|done|completed|fixed|in progress|wip|blocked|blockers?"
            + "|next steps?|next|steps|todo|to-do|to do|plan|remember|note|fyi|reminder"
            + "|目标|约束|限制|要求|偏好|决定|决策|已完成|完成|进行中|阻塞|下一步|计划)"
            + "\\s*[:：]\\s*");
    private static final Pattern BLOCKED = Pattern.compile(
            "(?i)\\bblocked\\b|\\bwaiting (?:for|on)\\b" + "|\\bcan(?:not|'t|’t) proceed\\b|\\bstuck\\b|阻塞|卡住|等待");
    private static final Pattern DECISION = Pattern.compile("(?i)\\bdecision\\b|\\bdecided\\b|\\blet(?:'|’)?s\\b"
            + "|\\bwe(?:'|’)ll\\b|\\bwe will\\b|\\bchose\\b|\\bchosen\\b|\\bagreed\\b|\\bgoing with\\b|决定|选定|同意");
    private static final Pattern CONSTRAINT = Pattern.compile("(?i)\\bmust\\b|\\bnever\\b|\\balways\\b|\\bcannot\\b"
            + "|\\bcan(?:'|’)t\\b|\\bdon(?:'|’)t\\b|\\bdo not\\b|\\bprefer\\w*|\\bconstraint\\w*|\\bdeadline\\b"
            + "|\\bbudget\\b|必须|不能|不要|不可以|总是|从不|偏好|喜欢|截止|预算");
    private static final Pattern GOAL = Pattern.compile("(?i)\\bgoal\\b|\\bI (?:want|need|would like)\\b"
            + "|\\bI(?:'|’)d like\\b|\\bwe are\\b|\\bwe(?:'|’)re\\b|\\bplease\\b|目标|我想|我需要|我们要|请");
    private static final Pattern DONE = Pattern.compile("(?i)\\b(?:done|fixed|updated|deployed|booked|completed"
            + "|merged|finished|resolved|implemented)\\b|已完成|完成了|已修复|修复了|已部署|已更新|已合并");
    private static final Pattern IN_PROGRESS = Pattern.compile(
            "(?i)\\bworking on\\b|\\bin progress\\b" + "|\\bnext,? I(?: will|(?:'|’)ll)\\b|\\bcurrently\\b|正在|进行中");
    private static final Pattern NEXT =
            Pattern.compile("(?i)\\bnext\\b|\\btodo\\b|\\bto-do\\b|\\bfollow-up\\b" + "|\\bthen\\b|下一步|接下来|然后|待办");
    private static final Pattern PREFERENCE =
            Pattern.compile("(?i)\\bprefer\\w*|\\blike\\b|\\blove\\b|\\bhate\\b" + "|\\brather\\b|喜欢|偏好");
    private static final Pattern DURABLE = Pattern.compile("(?i)\\bI (?:prefer|like|love|hate|dislike|always|never"
            + "|usually)\\b|\\bI(?:'|’)d rather\\b|\\bmy [\\w -]{1,30}? (?:is|are)\\b|\\bmy name is\\b|\\bcall me\\b"
            + "|\\bwe must\\b|^(?-i:(?:I'm|I’m|I am) [A-Z][\\w-]*)[.!]?$|我喜欢|我偏好|我总是|我从不|我们必须|我的.{1,10}是");
    private static final Pattern ERROR = Pattern.compile("(?i)error|exception|\\bfail(?:ed|ure|s)?\\b|\\bfatal\\b"
            + "|\\bpanic\\b|traceback|\\btimed out\\b|\\btimeout\\b|\\brefused\\b|\\bdenied\\b|错误|异常|失败|报错|超时");

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
}
