package io.reme.eval;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one LoCoMo-format conversation: its dialog turns ({@code conversation.session_N} with
 * {@code session_N_date_time}), the {@link MemoryType#DIALOG_CHUNK} memory each turn becomes (shaped by
 * {@link LocomoEval.Options}), and the evidence of a {@code qa} item. Lenient: a turn without a dialog id
 * is skipped, a date that does not parse is kept as written.
 */
final class LocomoData {
    private static final Pattern DIA_ID = Pattern.compile("D:?(\\d+):(\\d+)");
    private static final Pattern SESSION_KEY = Pattern.compile("session_(\\d+)");
    private static final DateTimeFormatter SESSION_TIME = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .appendPattern("h:mm a 'on' d MMMM, yyyy")
            .toFormatter(Locale.ENGLISH);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("d MMMM yyyy", Locale.ENGLISH);

    /** One dialog turn: its id ({@code D<session>:<turn>}), who said what, and when its session was. */
    record Turn(
            String diaId,
            String speaker,
            String text,
            String caption,
            int session,
            int index,
            Instant sessionTime,
            String sessionDate) {}

    /**
     * A question's evidence: the dialog ids that are turns of the conversation, and how many named ids were
     * dropped because they are not.
     */
    record Evidence(Set<String> ids, int dropped) {}

    private LocomoData() {}

    /** Every turn of every session, in session order. */
    static List<Turn> turns(JsonNode conversation) {
        Map<Integer, String> sessionKeys = new TreeMap<>();
        for (Iterator<String> it = conversation.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            Matcher m = SESSION_KEY.matcher(key);
            if (m.matches() && conversation.get(key).isArray()) {
                sessionKeys.put(Integer.parseInt(m.group(1)), key);
            }
        }
        List<Turn> out = new ArrayList<>();
        for (Map.Entry<Integer, String> s : sessionKeys.entrySet()) {
            String rawDate = conversation.path(s.getValue() + "_date_time").asText("");
            Instant time = parseSessionTime(rawDate);
            String day = time == null ? rawDate : DAY.format(time.atOffset(ZoneOffset.UTC));
            int i = 0;
            for (JsonNode t : conversation.get(s.getValue())) {
                String diaId = t.path("dia_id").asText("");
                if (diaId.isEmpty()) {
                    continue;
                }
                String caption = t.path("blip_caption").asText("");
                out.add(new Turn(
                        diaId,
                        t.path("speaker").asText(""),
                        t.path("text").asText(""),
                        caption.isBlank() ? null : caption,
                        s.getKey(),
                        i++,
                        time,
                        day));
            }
        }
        return out;
    }

    static Instant parseSessionTime(String raw) {
        try {
            return LocalDateTime.parse(raw.trim(), SESSION_TIME).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Every {@code D<session>:<turn>} in the item's evidence strings (some hold two ids, one has a stray
     * colon), kept when it is one of {@code diaIds}.
     */
    static Evidence evidence(JsonNode item, Set<String> diaIds) {
        Set<String> evidence = new LinkedHashSet<>();
        int dropped = 0;
        for (JsonNode e : item.path("evidence")) {
            Matcher m = DIA_ID.matcher(e.asText());
            while (m.find()) {
                String id = "D" + m.group(1) + ":" + m.group(2);
                if (diaIds.contains(id)) {
                    evidence.add(id);
                } else {
                    dropped++;
                }
            }
        }
        return new Evidence(evidence, dropped);
    }

    static List<MemoryRecord> records(String sample, String user, List<Turn> dialog, LocomoEval.Options options) {
        List<MemoryRecord> out = new ArrayList<>(dialog.size());
        for (int i = 0; i < dialog.size(); i++) {
            Turn t = dialog.get(i);
            StringBuilder text = new StringBuilder();
            if (options.sessionDate() && !t.sessionDate.isEmpty()) {
                text.append('[').append(t.sessionDate).append("] ");
            }
            text.append(base(t, options));
            String context = null;
            if (options.context() > 0) {
                List<String> around = new ArrayList<>();
                for (int j = Math.max(0, i - options.context());
                        j <= Math.min(dialog.size() - 1, i + options.context());
                        j++) {
                    if (j != i && dialog.get(j).session == t.session) {
                        around.add(base(dialog.get(j), options));
                    }
                }
                if (!around.isEmpty()) {
                    context = "(context) " + String.join("\n(context) ", around);
                }
            }
            Map<String, String> metadata = Map.of("dia_id", t.diaId, "speaker", t.speaker, "conversation", sample);
            MemoryRecord r = new MemoryRecord(
                    sample + "/" + t.diaId,
                    new MemoryRecord.Owner(LocomoEval.TENANT, user, "session_" + t.session),
                    MemoryType.DIALOG_CHUNK,
                    text.toString(),
                    new MemoryRecord.Times(t.sessionTime, t.sessionTime, t.sessionTime),
                    metadata,
                    null,
                    MemoryRecord.Versions.FIRST,
                    null,
                    MemoryRecord.Vectors.NONE,
                    List.of());
            // Long turns (code, logs) make neighbours longer than a record's context may be: keep the start.
            out.add(r.withContext(MemoryRecord.clipContext(context)));
        }
        return out;
    }

    private static String base(Turn t, LocomoEval.Options options) {
        String s = t.speaker + ": " + t.text;
        if (options.imageCaptions() && t.caption != null) {
            s += " [shares an image: " + t.caption + "]";
        }
        return s;
    }
}
