package io.reme.search;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user's standing instruction ("Always use 24-hour time when I ask about meetings", "Never touch prod",
 * "From now on, answer in German") governs later requests that need not share a word with it: "What time is
 * our next meeting?" ranks the meeting turns first and the instruction below them. A stated preference ("I
 * prefer Redis pub/sub over in-memory event emitters") governs later advice the same way. So within a list's
 * first {@link #DEPTH} hits, the best-ranked standing instruction moves up behind the first hit, and the
 * best-ranked preference behind that, when none is there already.
 *
 * <p>An instruction is told by its text: a sentence (the text's first, or one after {@code . ! : ;} or a line
 * break) that begins with "always" or "never" and an imperative verb (optionally after "please"), or with "from
 * now on" or "going forward", and that ends in a full stop or not at all. "Always good to hear", "Never been
 * there", "Always running around" and "Never saw this coming" are not instructions: a word after "always" or
 * "never" that cannot be an imperative (a form of be or have, a past tense, an adjective, a pronoun, a
 * participle ending in -ing or -ed) rules the sentence out; so does a question mark or an exclamation mark
 * ("Never give up!" cheers, it does not instruct). A preference is a text that says "I prefer", "I'd prefer",
 * "I would prefer", "my preference" or "set a preference". English only: on the LoCoMo and MemDaily dev sets
 * no turn is taken for either.
 */
public final class StandingInstructions {
    /**
     * How deep a list is read for an instruction or a preference to move up: 50 found more on BEAM dev than the
     * second hop's 20 (recall@10 .455 against .441, instruction following .431 against .285). The lists are read
     * that deep from the candidates the second hop's depth asks ({@link Retrieval#breadth}), so a client's search
     * asks the index for no more candidates than before (docs/evaluation.md).
     */
    public static final int DEPTH = 50;

    private static final Pattern SENTENCE = Pattern.compile(
            "(?:^|[.!:;]\\s+|\\n)\\s*(?:please\\s+)?(always|never|from now on|going forward)\\b[,]?\\s*([\\p{L}']*)([^.!?\\n]*)([.!?]?)",
            Pattern.CASE_INSENSITIVE);
    /** Words after "always" or "never" that make the sentence a statement, not an order. */
    private static final Set<String> NOT_IMPERATIVE = Set.of(
            "been", "was", "were", "is", "are", "am", "had", "has", "have", "did", "do", "does", "done", "gone",
            "thought", "knew", "saw", "seen", "heard", "felt", "met", "got", "went", "said", "told", "made", "took",
            "good", "great", "nice", "fun", "happy", "glad", "here", "there", "up", "a", "an", "the", "so", "too",
            "ever", "really", "quite", "such", "more", "i", "we", "you", "he", "she", "they", "it", "my", "our");

    /** A preference the user states: "I prefer", "I'd prefer", "I would prefer", "my preference", "set a preference". */
    private static final Pattern PREFERENCE = Pattern.compile(
            "\\bI(?:'d|\u2019d| would)? prefer\\b|\\bmy preference\\b|\\bset a preference\\b",
            Pattern.CASE_INSENSITIVE);

    private StandingInstructions() {}

    /** Whether {@code text} states a preference of its speaker's ("I prefer rule-based suggestions over ML models"). */
    public static boolean isPreference(String text) {
        return PREFERENCE.matcher(text).find();
    }

    /** Whether {@code text} states a standing instruction, as the class says. */
    public static boolean isInstruction(String text) {
        Matcher m = SENTENCE.matcher(text);
        while (m.find()) {
            String lead = m.group(1).toLowerCase(Locale.ROOT);
            String next = m.group(2).toLowerCase(Locale.ROOT);
            // A question asks; an exclamation cheers ("Never give up!", "Always here to help!").
            if (!m.group(4).equals(".") && !m.group(4).isEmpty()) {
                continue;
            }
            if (lead.equals("from now on") || lead.equals("going forward")) {
                return true;
            }
            boolean participle = next.endsWith("ing") || next.endsWith("ed");
            if (!next.isEmpty() && !participle && !NOT_IMPERATIVE.contains(next)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code hits} with the best-ranked standing instruction among the first {@link #DEPTH} moved to rank 2 (unless
     * the first two already hold one), then the best-ranked stated preference among the first {@link #DEPTH} moved
     * to rank 3 (unless the first three already hold one); the same list when neither is there. Each hit keeps its
     * scores. Only the first hit's user's count: an instruction governs its own user's requests, and a search over
     * the tenant is about the user its best hit is of (another user's "I prefer trains" is no answer to it).
     */
    public static List<Hit> upfront(List<Hit> hits) {
        return moveUp(moveUp(hits, StandingInstructions::isInstruction, 1), StandingInstructions::isPreference, 2);
    }

    /** The first hit within {@link #DEPTH} that {@code is} takes, moved to index {@code slot} if it is below it. */
    private static List<Hit> moveUp(List<Hit> hits, Predicate<String> is, int slot) {
        if (hits.isEmpty()) {
            return hits;
        }
        String user = hits.get(0).memory().user();
        int depth = Math.min(hits.size(), DEPTH);
        for (int i = 0; i < depth; i++) {
            MemoryRecord memory = hits.get(i).memory();
            if (Objects.equals(memory.user(), user) && is.test(memory.text())) {
                if (i <= slot) {
                    return hits;
                }
                List<Hit> moved = new ArrayList<>(hits);
                moved.add(slot, moved.remove(i));
                return List.copyOf(moved);
            }
        }
        return hits;
    }
}
