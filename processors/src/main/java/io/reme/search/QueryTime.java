package io.reme.search;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The calendar dates a search text names ("on October 13, 2023", "in May 2023", "in June", "in
 * 2022"), as terms of the index's time fields, so that a memory said at that time ranks above one
 * that only shares the words. Only absolute dates are read: relative ones ("last May", "recently")
 * need a reference time the text does not carry. Pure and thread-safe.
 *
 * <p>The terms are written for a memory from its {@link MemoryRecord#effectiveTime()} in UTC:
 * {@code day} {@code 2023-10-13}, {@code month} {@code 2023-10}, {@code month of year} {@code 10}
 * and {@code year} {@code 2023}. The most specific a text names wins: a day with its year, else a
 * month with its year, else a month of any year, else a year.
 */
public final class QueryTime {
    /** Which of the index's time fields a term is for. */
    public enum Field {
        DAY,
        MONTH,
        MONTH_OF_YEAR,
        YEAR
    }

    /** A term of one time field; a memory whose time has it is boosted. */
    public record Term(Field field, String value) {}

    private static final Map<String, Integer> MONTHS = months();
    private static final String MONTH = "(january|february|march|april|may|june|july|august|september|october|november"
            + "|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)";
    private static final String YEAR = "((?:19|20)\\d\\d)";
    // "October 13, 2023", "October 13th 2023"
    private static final Pattern MONTH_DAY_YEAR =
            Pattern.compile("\\b" + MONTH + "\\.? (\\d{1,2})(?:st|nd|rd|th)?,? " + YEAR + "\\b");
    // "13 October 2023"
    private static final Pattern DAY_MONTH_YEAR =
            Pattern.compile("\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?" + MONTH + "\\.?,? " + YEAR + "\\b");
    private static final Pattern ISO_DAY = Pattern.compile("\\b" + YEAR + "-(\\d{2})-(\\d{2})\\b");
    private static final Pattern MONTH_YEAR = Pattern.compile("\\b" + MONTH + "\\.?,? (?:of )?" + YEAR + "\\b");
    // A bare month only after a preposition, so "may" the verb is not read as May.
    private static final Pattern IN_MONTH = Pattern.compile("\\b(?:in|during|since|until|by|of|early|late|mid) "
            + "(january|february|march|april|may|june|july|august|september|october|november|december)\\b");
    private static final Pattern IN_YEAR = Pattern.compile("\\b(?:in|during|since|until|by|of) " + YEAR + "\\b");

    private QueryTime() {}

    /** The terms of the most specific date the text names, empty if it names none. */
    public static List<Term> terms(String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        String t = text.toLowerCase(Locale.ROOT);
        List<Term> out = new ArrayList<>();
        for (Matcher m = MONTH_DAY_YEAR.matcher(t); m.find(); ) {
            day(out, Integer.parseInt(m.group(3)), MONTHS.get(m.group(1)), Integer.parseInt(m.group(2)));
        }
        for (Matcher m = DAY_MONTH_YEAR.matcher(t); m.find(); ) {
            day(out, Integer.parseInt(m.group(3)), MONTHS.get(m.group(2)), Integer.parseInt(m.group(1)));
        }
        for (Matcher m = ISO_DAY.matcher(t); m.find(); ) {
            day(out, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
        }
        if (!out.isEmpty()) {
            return List.copyOf(out);
        }
        for (Matcher m = MONTH_YEAR.matcher(t); m.find(); ) {
            out.add(new Term(Field.MONTH, String.format(Locale.ROOT, "%s-%02d", m.group(2), MONTHS.get(m.group(1)))));
        }
        if (!out.isEmpty()) {
            return List.copyOf(out);
        }
        for (Matcher m = IN_MONTH.matcher(t); m.find(); ) {
            out.add(new Term(Field.MONTH_OF_YEAR, Integer.toString(MONTHS.get(m.group(1)))));
        }
        if (!out.isEmpty()) {
            return List.copyOf(out);
        }
        for (Matcher m = IN_YEAR.matcher(t); m.find(); ) {
            out.add(new Term(Field.YEAR, m.group(1)));
        }
        return List.copyOf(out);
    }

    /** The value of each time field for a memory's time (UTC). */
    public static Map<Field, String> fields(Instant time) {
        LocalDate day = time.atOffset(ZoneOffset.UTC).toLocalDate();
        return Map.of(
                Field.DAY, day.toString(),
                Field.MONTH, String.format(Locale.ROOT, "%04d-%02d", day.getYear(), day.getMonthValue()),
                Field.MONTH_OF_YEAR, Integer.toString(day.getMonthValue()),
                Field.YEAR, Integer.toString(day.getYear()));
    }

    private static void day(List<Term> out, int year, int month, int dayOfMonth) {
        try {
            out.add(new Term(Field.DAY, LocalDate.of(year, month, dayOfMonth).toString()));
        } catch (DateTimeException e) {
            // "February 30, 2023" names no day; the text is searched by its words alone.
        }
    }

    private static Map<String, Integer> months() {
        String[] names = {
            "january", "february", "march", "april", "may", "june",
            "july", "august", "september", "october", "november", "december"
        };
        Map<String, Integer> out = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            out.put(names[i], i + 1);
            out.put(names[i].substring(0, 3), i + 1);
        }
        out.put("sept", 9);
        return Map.copyOf(out);
    }
}
