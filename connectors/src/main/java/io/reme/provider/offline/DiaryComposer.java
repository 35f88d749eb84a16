package io.reme.provider.offline;

import io.reme.message.Message;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes an {@link Extraction} into the user's diary through a {@link DocumentEditor}.
 *
 * <p>The day's document (started with a {@code # <date>} heading) gets a {@code ## HH:MM–HH:MM <session>}
 * section (UTC times of the first and last message; bullets are added to it if it already exists) with
 * one labelled bullet per goal, decision, constraint, preference or user fact, done item, blocker, next
 * step and critical item. A bullet whose text the document already contains is left out, as is a
 * critical item another bullet contains, so running the same task again adds nothing. Text is added
 * through {@link DocumentEditor#edit} anchored on the shortest run of final lines that occurs once, or
 * written whole when the document is new. The user's durable statements ({@link SectionRules#DURABLE})
 * are added to {@code MEMORY.md} (created with {@value #MEMORY_HEADING}) under
 * {@value #MEMORY_SECTION}, once each.
 */
final class DiaryComposer {
    static final String MEMORY_HEADING = "# Long-term memory";
    static final String MEMORY_SECTION = "## Preferences and constraints";
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
    private static final Pattern BULLET = Pattern.compile("[-*+•]\\s+(.*)");

    private DiaryComposer() {}

    /** Adds the extraction's bullets to the task's daily document; returns how many were added. */
    static int writeDiary(DiaryTask task, DocumentEditor editor, Extraction extraction) {
        String document = task.dailyDocument();
        String current = editor.read(document);
        String known = Sentences.normalize(current);
        List<String> bullets = new ArrayList<>();
        StringBuilder added = new StringBuilder();
        List<String> context = extraction.sections.get(Section.CONTEXT).list.stream()
                .map(Sentences::normalize)
                .toList();
        for (Section kind : List.of(
                Section.GOAL,
                Section.DECISION,
                Section.CONSTRAINT,
                Section.DONE,
                Section.BLOCKED,
                Section.NEXT,
                Section.CONTEXT)) {
            for (String item : extraction.sections.get(kind).list) {
                String body = Sentences.normalize(item);
                if (kind == Section.CONTEXT
                        && context.stream()
                                .anyMatch(other ->
                                        other.length() > body.length() && Sentences.containsWord(other, body))) {
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
            editor.write(
                    document,
                    "# " + task.date() + "\n\n" + heading + "\n" + OfflineLlmClient.DIARY_MARKER + "\n" + lines);
        } else if (lineIndex(current, heading) >= 0) {
            insertAtSectionEnd(editor, document, current, lineIndex(current, heading), lines);
        } else {
            append(editor, document, current, heading + "\n" + OfflineLlmClient.DIARY_MARKER + "\n" + lines);
        }
        return bullets.size();
    }

    private static String diaryLabel(Section kind, String item) {
        return switch (kind) {
            case GOAL -> "Goal: ";
            case DECISION -> "Decision: ";
            case CONSTRAINT ->
                SectionRules.PREFERENCE.matcher(item).find()
                        ? "Preference: "
                        : SectionRules.CONSTRAINT.matcher(item).find() ? "Constraint: " : "Fact: ";
            case DONE -> "Done: ";
            case BLOCKED -> "Blocked: ";
            case NEXT -> "Next: ";
            default -> "Context: ";
        };
    }

    static int promote(DocumentEditor editor, List<String> durable) {
        if (durable.isEmpty()) {
            return 0;
        }
        String document = DocumentEditor.LONG_TERM;
        String current = editor.read(document);
        Set<String> known = new HashSet<>();
        for (String line : current.split("\n", -1)) {
            Matcher bullet = BULLET.matcher(line.strip());
            if (bullet.matches()) {
                known.add(Sentences.key(bullet.group(1)));
            }
        }
        List<String> bullets = new ArrayList<>();
        for (String fact : durable) {
            if (known.add(Sentences.key(fact))) {
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
        int level =
                Sentences.headingLevel(current.substring(headingAt, headingEnd).strip());
        int end = current.length();
        int pos = headingEnd + 1;
        while (pos < current.length()) {
            int next = current.indexOf('\n', pos);
            String line =
                    current.substring(pos, next < 0 ? current.length() : next).strip();
            int lineLevel = Sentences.headingLevel(line);
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
}
