package io.reme.provider.offline;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.provider.ExtractTask;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.MergeDecision;
import io.reme.provider.MergeTask;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The offline provider's memory rules: deterministic, no model.
 *
 * <h2>Extraction</h2>
 * <ul>
 * <li><b>Personal</b>: each sentence of the user's text that states a preference or a fact about
 * the user: "my X is Y" (about "my X"), "I like / love / enjoy / prefer / hate / dislike Y",
 * and their Chinese forms ("我的X是Y", "我(很)喜欢Y", "我不再喜欢Y"),
 * "I don't / no longer / never like … Y", "I always / never Y" (about Y). The content is the
 * sentence; the target is the user.</li>
 * <li><b>Procedural</b>: when the span calls tools, one memory for the task (the first sentence of
 * the first user message, lower case): which calls failed, with the error's first line, and which
 * call worked. A tool output is a failure when it reports an error ("error", "failed",
 * "exception", "denied", "not found", "traceback", a non-zero exit code).</li>
 * <li><b>Tool</b>: per tool called, how many calls failed, the arguments that worked and the
 * first error line.</li>
 * </ul>
 *
 * <h2>Merging</h2>
 * A neighbour with the same text after normalisation (lower case, spacing and punctuation
 * removed), a word-set Jaccard similarity of at least {@value #NEAR_JACCARD} or a cosine similarity
 * of at least {@value #NEAR_COSINE} makes the candidate a duplicate: NOOP. Otherwise a personal
 * candidate about the same thing as a neighbour (the same "about", or one starting with the other's
 * words) supersedes it: UPDATE; a procedural
 * or tool candidate updates the nearest memory of its target, unless it only reports failures
 * and that memory already records what worked (NOOP: the failure is old news). Anything else is ADD.
 */
final class OfflineMemoryRules {
    static final double NEAR_JACCARD = 0.8;
    static final double NEAR_COSINE = 0.95;
    static final String OUTCOME = "outcome";
    private static final int MAX_CONTENT = 600;

    // Chinese ends a sentence with 。！？ and no space after it.
    private static final Pattern SENTENCE = Pattern.compile("(?<=[.!?])\\s+|(?<=[。！？])\\s*|\\n+");
    private static final Pattern MY_X_IS =
            Pattern.compile("(?i)\\bmy ((?:[\\p{L}'-]+ ){0,3}?[\\p{L}'-]+) (?:is|are|was) (.+)");
    private static final Pattern NEGATIVE =
            Pattern.compile("(?i)\\bI (?:do not|don't|dont|no longer|never|stopped|can't stand) (?:really )?"
                    + "(?:like|love|enjoy|want|drink|eat|use|prefer|liking|drinking|eating|using)?\\s*(.+)");
    private static final Pattern POSITIVE = Pattern.compile(
            "(?i)\\bI (?:really |also |still |now |actually )?(like|love|enjoy|prefer|hate|dislike|always) (.+)");
    private static final Pattern I_AM = Pattern.compile(
            "(?i)\\bI(?:'m| am) (?:a |an )?(vegetarian|vegan|pescatarian|allergic to [\\p{L} -]+|lactose intolerant"
                    + "|left-handed|colou?r-blind)");
    // The same statements in Chinese: "我的X是Y", "我不(再)喜欢Y", "我(很/一直…)喜欢Y".
    private static final Pattern MY_X_IS_ZH = Pattern.compile("我的(\\p{IsHan}{1,8}?)(?:是|叫|在)(.+)");
    private static final Pattern NEGATIVE_ZH = Pattern.compile("我(?:不再|再也不|已经不|从不|不)(?:太|怎么)?(?:喜欢|爱|想|吃|喝|用)(.+)");
    private static final Pattern POSITIVE_ZH =
            Pattern.compile("我(?:很|也|还|一直|真的|最|特别|非常|比较|总是)*(喜欢|爱吃|爱喝|爱|讨厌|偏好|更喜欢)(.+)");
    private static final Pattern CLAUSE_END_ZH = Pattern.compile("[，,。！？!?；;、].*");
    private static final Pattern PARTICLES_ZH = Pattern.compile("(?:了|啦|呀|呢|吧|的)+$");
    private static final Pattern OBJECT_END = Pattern.compile(
            "(?i)\\s+(?:anymore|any more|now|because|but|since|when|as|over|instead|these days)\\b.*|[,;:.!?].*");
    private static final Pattern ERROR = Pattern.compile(
            "(?i)\\b(error|failed|failure|exception|denied|not found|traceback|fatal)\\b|exit (?:code|status) [1-9]");

    private OfflineMemoryRules() {}

    // ---- extraction ---------------------------------------------------------------------------------

    static List<MemoryCandidate> extract(ExtractTask task) {
        return switch (task.type()) {
            case PERSONAL -> personal(task);
            case PROCEDURAL -> procedural(task);
            case TOOL -> tools(task);
            default -> List.of();
        };
    }

    private static List<MemoryCandidate> personal(ExtractTask task) {
        List<MemoryCandidate> found = new ArrayList<>();
        for (Message message : task.messages()) {
            if (message.role() != Role.USER) {
                continue;
            }
            for (String sentence : SENTENCE.split(text(message))) {
                String s = sentence.strip();
                String about = about(s);
                if (about != null) {
                    found.add(new MemoryCandidate(
                            MemoryType.PERSONAL,
                            task.user(),
                            cut(s),
                            message.time(),
                            Map.of(MemoryCandidate.ABOUT, about, "messageId", message.id())));
                }
            }
        }
        return found;
    }

    /** What a personal statement is about, or null when the sentence states no preference or fact. */
    static String about(String sentence) {
        String chinese = aboutChinese(sentence);
        if (chinese != null) {
            return chinese;
        }
        Matcher my = MY_X_IS.matcher(sentence);
        if (my.find()) {
            return "my " + my.group(1).toLowerCase(Locale.ROOT);
        }
        Matcher diet = I_AM.matcher(sentence);
        if (diet.find()) {
            return object(diet.group(1));
        }
        Matcher negative = NEGATIVE.matcher(sentence);
        if (negative.find()) {
            return object(negative.group(1));
        }
        Matcher positive = POSITIVE.matcher(sentence);
        if (positive.find()) {
            return object(positive.group(2));
        }
        return null;
    }

    private static String aboutChinese(String sentence) {
        Matcher my = MY_X_IS_ZH.matcher(sentence);
        if (my.find()) {
            return "我的" + my.group(1);
        }
        Matcher negative = NEGATIVE_ZH.matcher(sentence);
        if (negative.find()) {
            return objectChinese(negative.group(1));
        }
        Matcher positive = POSITIVE_ZH.matcher(sentence);
        return positive.find() ? objectChinese(positive.group(2)) : null;
    }

    private static String objectChinese(String rest) {
        String clause = CLAUSE_END_ZH.matcher(rest.strip()).replaceFirst("");
        String object = PARTICLES_ZH.matcher(clause).replaceFirst("").strip();
        return object.isBlank() || object.length() > 40 ? null : object;
    }

    private static String object(String rest) {
        String object =
                OBJECT_END.matcher(rest.strip()).replaceFirst("").strip().toLowerCase(Locale.ROOT);
        object = object.replaceFirst("^(?:to |the |a |an )", "");
        return object.isBlank() || object.length() > 80 ? null : object;
    }

    private record Call(String name, String input, String output, boolean failed) {}

    /** Tool calls of the span paired with their results, in order. */
    private static List<Call> calls(List<Message> messages) {
        Map<String, Block.ToolUse> uses = new HashMap<>();
        List<Call> calls = new ArrayList<>();
        for (Message message : messages) {
            for (Block block : message.content()) {
                if (block instanceof Block.ToolUse use) {
                    uses.put(use.id(), use);
                } else if (block instanceof Block.ToolResult result) {
                    Block.ToolUse use = uses.get(result.id());
                    String name = use != null ? use.name() : result.name();
                    if (!name.isBlank()) {
                        calls.add(new Call(
                                name,
                                use != null ? use.input() : "{}",
                                result.output(),
                                ERROR.matcher(result.output()).find()));
                    }
                }
            }
        }
        return calls;
    }

    private static List<MemoryCandidate> procedural(ExtractTask task) {
        List<Call> calls = calls(task.messages());
        Message first = task.messages().stream()
                .filter(m -> m.role() == Role.USER && !text(m).isBlank())
                .findFirst()
                .orElse(null);
        if (calls.isEmpty() || first == null) {
            return List.of();
        }
        String goal = SENTENCE.split(text(first).strip())[0]
                .replaceAll("[.!?。！？]+$", "")
                .strip();
        String taskName = goal.toLowerCase(Locale.ROOT);
        if (taskName.length() > 80) {
            taskName = taskName.substring(0, 80).strip();
        }
        Call worked = null;
        List<Call> failed = new ArrayList<>();
        for (Call call : calls) {
            if (call.failed()) {
                failed.add(call);
            } else {
                worked = call;
            }
        }
        StringBuilder content = new StringBuilder("To ").append(taskName).append(": ");
        if (worked != null) {
            content.append("what worked was ")
                    .append(worked.name())
                    .append(' ')
                    .append(worked.input())
                    .append('.');
        }
        for (Call call : failed) {
            content.append(worked != null ? " Before that, " : " ")
                    .append(call.name())
                    .append(' ')
                    .append(call.input())
                    .append(" failed: ")
                    .append(firstErrorLine(call.output()))
                    .append('.');
        }
        return List.of(new MemoryCandidate(
                MemoryType.PROCEDURAL,
                taskName,
                cut(content.toString().strip()),
                task.messages().get(task.messages().size() - 1).time(),
                Map.of(OUTCOME, worked != null ? "worked" : "failed")));
    }

    private static List<MemoryCandidate> tools(ExtractTask task) {
        Map<String, List<Call>> byTool = new LinkedHashMap<>();
        for (Call call : calls(task.messages())) {
            byTool.computeIfAbsent(call.name(), n -> new ArrayList<>()).add(call);
        }
        List<MemoryCandidate> found = new ArrayList<>();
        for (Map.Entry<String, List<Call>> tool : byTool.entrySet()) {
            List<Call> calls = tool.getValue();
            long failures = calls.stream().filter(Call::failed).count();
            StringBuilder content = new StringBuilder(tool.getKey())
                    .append(": ")
                    .append(calls.size())
                    .append(calls.size() == 1 ? " call, " : " calls, ")
                    .append(failures)
                    .append(" failed.");
            calls.stream()
                    .filter(c -> !c.failed())
                    .reduce((a, b) -> b)
                    .ifPresent(c ->
                            content.append(" Worked with ").append(c.input()).append('.'));
            calls.stream()
                    .filter(Call::failed)
                    .findFirst()
                    .ifPresent(c -> content.append(" Failed with ")
                            .append(c.input())
                            .append(": ")
                            .append(firstErrorLine(c.output()))
                            .append('.'));
            found.add(new MemoryCandidate(
                    MemoryType.TOOL,
                    tool.getKey(),
                    cut(content.toString()),
                    task.messages().get(task.messages().size() - 1).time(),
                    Map.of(OUTCOME, failures < calls.size() ? "worked" : "failed")));
        }
        return found;
    }

    private static String firstErrorLine(String output) {
        for (String line : output.split("\\R")) {
            if (ERROR.matcher(line).find()) {
                return line.strip().length() > 160 ? line.strip().substring(0, 160) : line.strip();
            }
        }
        return "no error line";
    }

    private static String text(Message message) {
        StringBuilder text = new StringBuilder();
        for (Block block : message.content()) {
            if (block instanceof Block.Text t) {
                text.append(t.text()).append('\n');
            }
        }
        return text.toString();
    }

    private static String cut(String s) {
        return s.length() <= MAX_CONTENT ? s : s.substring(0, MAX_CONTENT);
    }

    // ---- merging ------------------------------------------------------------------------------------

    static MergeDecision merge(MergeTask task) {
        MemoryCandidate candidate = task.candidate();
        for (MergeTask.Neighbour n : task.neighbours()) {
            if (duplicate(candidate.content(), n)) {
                return MergeDecision.noop();
            }
        }
        if (candidate.type() == MemoryType.PERSONAL) {
            String about = candidate.metadata().get(MemoryCandidate.ABOUT);
            for (MergeTask.Neighbour n : task.neighbours()) {
                if (sameSubject(about, n.memory().metadata().get(MemoryCandidate.ABOUT))) {
                    return MergeDecision.update(n.memory().id(), candidate.content());
                }
            }
            return MergeDecision.add(candidate.content());
        }
        for (MergeTask.Neighbour n : task.neighbours()) {
            if (candidate.target().equals(n.memory().target())) {
                boolean knowsWhatWorked = "worked".equals(n.memory().metadata().get(OUTCOME));
                if (!"worked".equals(candidate.metadata().get(OUTCOME)) && knowsWhatWorked) {
                    return MergeDecision.noop();
                }
                return MergeDecision.update(n.memory().id(), candidate.content());
            }
        }
        return MergeDecision.add(candidate.content());
    }

    /** "green tea" and "green tea in the morning" are about the same thing; "tea" and "green tea" are not. */
    static boolean sameSubject(String a, String b) {
        return a != null && b != null && (a.equals(b) || a.startsWith(b + " ") || b.startsWith(a + " "));
    }

    static boolean duplicate(String content, MergeTask.Neighbour n) {
        MemoryRecord existing = n.memory();
        if (normalise(content).equals(normalise(existing.text()))) {
            return true;
        }
        if (n.similarity() != null && n.similarity() >= NEAR_COSINE) {
            return true;
        }
        return jaccard(words(content), words(existing.text())) >= NEAR_JACCARD;
    }

    static String normalise(String s) {
        return s.toLowerCase(Locale.ROOT)
                .replaceAll("[\\p{P}\\p{S}]+", " ")
                .replaceAll("\\s+", " ")
                .strip();
    }

    private static Set<String> words(String s) {
        String n = normalise(s);
        return n.isEmpty() ? Set.of() : new HashSet<>(Arrays.asList(n.split(" ")));
    }

    private static double jaccard(Set<String> a, Set<String> b) {
        if (a.isEmpty() && b.isEmpty()) {
            return 1;
        }
        Set<String> union = new HashSet<>(a);
        union.addAll(b);
        Set<String> common = new HashSet<>(a);
        common.retainAll(b);
        return (double) common.size() / union.size();
    }
}
