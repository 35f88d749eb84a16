package io.reme.provider.offline;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The rule table: which summary section a sentence goes to.
 *
 * <p>A leading label wins ({@code Goal:}, {@code Constraint:}, {@code Preference:}, {@code Decision:},
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
 * An unplaced sentence that mentions an error ({@link #ERROR}: "error", "exception", "failed",
 * "timeout"…) goes to Critical Context whole. Statements by the user that read as durable
 * ({@link #DURABLE}: "I prefer", "I like", "I always/never", "my X is", "I'm Alice", "we must",
 * 我喜欢, 我们必须…) are also candidates for {@code MEMORY.md}.
 */
final class SectionRules {
    static final Pattern LABEL = Pattern.compile("(?i)(goal|objective|aim|constraints?|preferences?"
            + "|requirements?|decisions?|decided|done|completed|fixed|in progress|wip|blocked|blockers?"
            + "|next steps?|next|steps|todo|to-do|to do|plan|remember|note|fyi|reminder"
            + "|目标|约束|限制|要求|偏好|决定|决策|已完成|完成|进行中|阻塞|下一步|计划)"
            + "\\s*[:：]\\s*");
    static final Pattern BLOCKED = Pattern.compile(
            "(?i)\\bblocked\\b|\\bwaiting (?:for|on)\\b" + "|\\bcan(?:not|'t|’t) proceed\\b|\\bstuck\\b|阻塞|卡住|等待");
    static final Pattern DECISION = Pattern.compile("(?i)\\bdecision\\b|\\bdecided\\b|\\blet(?:'|’)?s\\b"
            + "|\\bwe(?:'|’)ll\\b|\\bwe will\\b|\\bchose\\b|\\bchosen\\b|\\bagreed\\b|\\bgoing with\\b|决定|选定|同意");
    static final Pattern CONSTRAINT = Pattern.compile("(?i)\\bmust\\b|\\bnever\\b|\\balways\\b|\\bcannot\\b"
            + "|\\bcan(?:'|’)t\\b|\\bdon(?:'|’)t\\b|\\bdo not\\b|\\bprefer\\w*|\\bconstraint\\w*|\\bdeadline\\b"
            + "|\\bbudget\\b|必须|不能|不要|不可以|总是|从不|偏好|喜欢|截止|预算");
    static final Pattern GOAL = Pattern.compile("(?i)\\bgoal\\b|\\bI (?:want|need|would like)\\b"
            + "|\\bI(?:'|’)d like\\b|\\bwe are\\b|\\bwe(?:'|’)re\\b|\\bplease\\b|目标|我想|我需要|我们要|请");
    static final Pattern DONE = Pattern.compile("(?i)\\b(?:done|fixed|updated|deployed|booked|completed"
            + "|merged|finished|resolved|implemented)\\b|已完成|完成了|已修复|修复了|已部署|已更新|已合并");
    static final Pattern IN_PROGRESS = Pattern.compile(
            "(?i)\\bworking on\\b|\\bin progress\\b" + "|\\bnext,? I(?: will|(?:'|’)ll)\\b|\\bcurrently\\b|正在|进行中");
    static final Pattern NEXT =
            Pattern.compile("(?i)\\bnext\\b|\\btodo\\b|\\bto-do\\b|\\bfollow-up\\b" + "|\\bthen\\b|下一步|接下来|然后|待办");
    static final Pattern PREFERENCE =
            Pattern.compile("(?i)\\bprefer\\w*|\\blike\\b|\\blove\\b|\\bhate\\b" + "|\\brather\\b|喜欢|偏好");
    static final Pattern DURABLE = Pattern.compile("(?i)\\bI (?:prefer|like|love|hate|dislike|always|never"
            + "|usually)\\b|\\bI(?:'|’)d rather\\b|\\bmy [\\w -]{1,30}? (?:is|are)\\b|\\bmy name is\\b|\\bcall me\\b"
            + "|\\bwe must\\b|^(?-i:(?:I'm|I’m|I am) [A-Z][\\w-]*)[.!]?$|我喜欢|我偏好|我总是|我从不|我们必须|我的.{1,10}是");
    static final Pattern ERROR = Pattern.compile("(?i)error|exception|\\bfail(?:ed|ure|s)?\\b|\\bfatal\\b"
            + "|\\bpanic\\b|traceback|\\btimed out\\b|\\btimeout\\b|\\brefused\\b|\\bdenied\\b|错误|异常|失败|报错|超时");

    private SectionRules() {}

    static Section classify(String sentence, boolean fromUser) {
        if (BLOCKED.matcher(sentence).find()) {
            return Section.BLOCKED;
        } else if (DECISION.matcher(sentence).find()) {
            return Section.DECISION;
        } else if (fromUser && CONSTRAINT.matcher(sentence).find()) {
            return Section.CONSTRAINT;
        } else if (fromUser && GOAL.matcher(sentence).find()) {
            return Section.GOAL;
        } else if (DONE.matcher(sentence).find()) {
            return Section.DONE;
        } else if (IN_PROGRESS.matcher(sentence).find()) {
            return Section.IN_PROGRESS;
        } else if (NEXT.matcher(sentence).find()) {
            return Section.NEXT;
        }
        return null;
    }

    static Section forLabel(String label) {
        String l = label.toLowerCase(Locale.ROOT);
        if (l.startsWith("goal") || l.startsWith("objective") || l.startsWith("aim") || l.equals("目标")) {
            return Section.GOAL;
        } else if (l.startsWith("constraint")
                || l.startsWith("preference")
                || l.startsWith("requirement")
                || l.equals("约束")
                || l.equals("限制")
                || l.equals("要求")
                || l.equals("偏好")) {
            return Section.CONSTRAINT;
        } else if (l.startsWith("decision") || l.equals("decided") || l.equals("决定") || l.equals("决策")) {
            return Section.DECISION;
        } else if (l.equals("done")
                || l.equals("completed")
                || l.equals("fixed")
                || l.equals("已完成")
                || l.equals("完成")) {
            return Section.DONE;
        } else if (l.equals("in progress") || l.equals("wip") || l.equals("进行中")) {
            return Section.IN_PROGRESS;
        } else if (l.startsWith("blocked") || l.startsWith("blocker") || l.equals("阻塞")) {
            return Section.BLOCKED;
        } else if (l.equals("remember") || l.equals("note") || l.equals("fyi") || l.equals("reminder")) {
            return null;
        }
        return Section.NEXT;
    }

    // ---------------------------------------------------------------- text helpers
}
