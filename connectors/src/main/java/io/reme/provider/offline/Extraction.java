package io.reme.provider.offline;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.summary.SummaryFormat;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the offline provider picks out of a conversation: the items of each {@link Section} and the
 * user's durable statements. Not thread-safe: one per task.
 *
 * <ul>
 * <li>User and assistant text is split into lines, list items and sentences ({@link Sentences});
 * inline lists {@code 1) a, 2) b} become items; each sentence goes where {@link SectionRules} says.</li>
 * <li>Tool calls, tool results, thinking and system text never contribute sentences, only the
 * critical items extracted from them ({@link CriticalItems}, at most {@value #MAX_TOOL_ITEMS} per
 * block) and, for a tool's output, its first and last few lines that report an error, so an output
 * is never copied whole.</li>
 * <li>A previous summary's sections are parsed with {@link SummaryFormat#section} and its items kept
 * first, in order; new items are appended, skipping duplicates. A previous summary without the
 * structure is read like user text.</li>
 * </ul>
 */
final class Extraction {
    static final int MAX_TOOL_ITEMS = 20;
    private static final int MAX_ERROR_LINES = 8;
    private static final int MAX_ERROR_LINE_CHARS = 200;
    private static final Pattern NONE = Pattern.compile("(?i)\\(?none\\)?\\.?");
    private static final Pattern MARKDOWN_HEADING = Pattern.compile("^#{1,6}\\s+");
    private static final Pattern INLINE_NUMBER = Pattern.compile("(?:^|(?<=[\\s:：(（,，;；]))(\\d{1,2})[.)）]\\s+");

    private enum Source {
        USER,
        ASSISTANT,
        PREVIOUS
    }

    final Map<Section, Items> sections = new EnumMap<>(Section.class);
    final Items durable = new Items(false);
    private String firstRequest;

    Extraction() {
        for (Section kind : Section.values()) {
            sections.put(kind, new Items(kind == Section.CONTEXT));
        }
    }

    void mergePrevious(String previous) {
        if (previous.isBlank()) {
            return;
        }
        boolean structured = false;
        for (Section kind : Section.values()) {
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
                                    kind == Section.DONE
                                            ? "Done"
                                            : kind == Section.IN_PROGRESS ? "In Progress" : "Blocked");
                }
            };
            if (body == null) {
                continue;
            }
            structured = true;
            for (String line : body.split("\n")) {
                String item = line.strip();
                Matcher list = Sentences.LIST_LINE.matcher(item);
                if (list.matches()) {
                    item = list.group(2).strip();
                }
                if (item.isEmpty()
                        || NONE.matcher(item).matches()
                        || item.startsWith("_(offline")
                        || Sentences.headingLevel(item) > 0) {
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
                sections.get(Section.CONTEXT).add(image.url());
            }
        }
    }

    void fallBackToFirstRequest() {
        if (sections.get(Section.GOAL).list.isEmpty() && firstRequest != null) {
            sections.get(Section.GOAL).add(firstRequest);
        }
    }

    /**
     * Text that is not conversation (tool calls and results, thinking, system): its critical items
     * and, for a tool's output, the first and last few lines that report an error.
     */
    private void raw(String text, boolean quotes, boolean errorLines) {
        String scanned = Sentences.scanned(text);
        Items context = sections.get(Section.CONTEXT);
        if (errorLines) {
            List<String> errors = new ArrayList<>();
            for (String line : scanned.split("\\R")) {
                if (SectionRules.ERROR.matcher(line).find()) {
                    errors.add(Sentences.cut(line.strip(), MAX_ERROR_LINE_CHARS));
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
        for (String item : CriticalItems.find(scanned, quotes)) {
            if (added++ >= MAX_TOOL_ITEMS) {
                break;
            }
            context.add(item);
        }
    }

    private void text(String text, Source source) {
        Section listKind = null;
        for (String rawLine : Sentences.scanned(text).split("\\R")) {
            String line = rawLine.strip();
            if (line.isEmpty()) {
                continue;
            }
            line = MARKDOWN_HEADING.matcher(line).replaceFirst("");
            Matcher list = Sentences.LIST_LINE.matcher(line);
            boolean listItem = list.matches();
            boolean numbered = listItem && list.group(1).matches("\\d.*");
            if (listItem) {
                line = list.group(2);
            }
            Section lastKind = null;
            for (String sentence : Sentences.sentences(line)) {
                lastKind = sentence(sentence, source, listItem ? listKind : null, numbered);
            }
            if (!listItem) {
                listKind = line.endsWith(":") || line.endsWith("：") ? lastKind : null;
            }
        }
    }

    /** Handles one sentence, splitting an inline numbered list; returns the section it went to. */
    private Section sentence(String sentence, Source source, Section inherited, boolean numbered) {
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
        Section prefixKind = place(prefix, source, inherited, false);
        Section itemKind = prefixKind != null ? prefixKind : inherited;
        for (int i = 0; i < markers.size(); i++) {
            int end = i + 1 < markers.size() ? markers.get(i + 1)[0] : sentence.length();
            place(sentence.substring(markers.get(i)[1], end), source, itemKind, true);
        }
        return prefixKind;
    }

    private Section place(String sentence, Source source, Section inherited, boolean numbered) {
        String text = sentence.strip();
        if (text.isEmpty()) {
            return null;
        }
        Section kind = null;
        String body = text;
        Matcher label = SectionRules.LABEL.matcher(text);
        if (label.lookingAt()) {
            kind = SectionRules.forLabel(label.group(1));
            body = text.substring(label.end());
        }
        boolean fromUser = source != Source.ASSISTANT;
        if (kind == null) {
            kind = inherited;
        }
        if (kind == null) {
            kind = SectionRules.classify(body, fromUser);
        }
        boolean durable =
                source == Source.USER && SectionRules.DURABLE.matcher(body).find();
        if (kind == null && durable) {
            kind = Section.CONSTRAINT;
        }
        if (kind == null && numbered) {
            kind = Section.NEXT;
        }
        if (source == Source.USER
                && firstRequest == null
                && kind != Section.CONSTRAINT
                && !Sentences.clean(body).isEmpty()) {
            firstRequest = body;
        }
        if (durable && kind == Section.CONSTRAINT) {
            this.durable.add(body);
        }
        if (kind != null) {
            sections.get(kind).add(body);
        } else if (SectionRules.ERROR.matcher(body).find()) {
            sections.get(Section.CONTEXT).add(body);
        }
        for (String item : CriticalItems.find(text, true)) {
            sections.get(Section.CONTEXT).add(item);
        }
        return kind;
    }
}
