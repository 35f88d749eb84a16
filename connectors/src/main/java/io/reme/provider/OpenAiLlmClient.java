package io.reme.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.core.JsonValue;
import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIRetryableException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionAssistantMessageParam;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionMessage;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionMessageToolCall;
import com.openai.models.chat.completions.ChatCompletionTool;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import io.reme.json.Json;
import io.reme.message.Transcript;
import io.reme.summary.SummaryFormat;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * An {@link LlmClient} over an OpenAI-compatible chat completions endpoint (OpenAI, or any server
 * speaking the same protocol). A summary is one request; a diary update is a tool loop in which the
 * model reads and changes the two documents through {@link DocumentEditor}.
 *
 * <p>The SDK's own retries are off: one call here is one HTTP request per model turn, and the
 * worker pool decides about trying again from {@link LlmException#retryable()}.
 */
public final class OpenAiLlmClient implements LlmClient {
    /** Longest rendering of one content block in a prompt; the rest is marked as cut. */
    public static final int TRANSCRIPT_BLOCK_CHARS = 2000;
    /** Most model calls one diary update may take. */
    public static final int MAX_TOOL_ROUNDS = 8;

    private static final int MAX_ERROR_CHARS = 500;

    private final OpenAiSettings settings;
    private final OpenAIClient client;
    private final Transcript transcript = new Transcript(ZoneOffset.UTC, TRANSCRIPT_BLOCK_CHARS);

    public OpenAiLlmClient(OpenAiSettings settings) {
        this.settings = settings;
        this.client = settings.newClient();
    }

    /** A client configured by {@link OpenAiSettings#fromEnv(Map)}. */
    public static OpenAiLlmClient fromEnv(Map<String, String> env) {
        return new OpenAiLlmClient(OpenAiSettings.fromEnv(env));
    }

    public OpenAiSettings settings() {
        return settings;
    }

    @Override
    public String id() {
        return "openai:" + settings.model();
    }

    // ---------------------------------------------------------------- summary

    @Override
    public String summarize(SummaryTask task) throws LlmException {
        ChatCompletionCreateParams params = request()
                .addSystemMessage(SummaryPrompt.SYSTEM)
                .addUserMessage(summaryPrompt(task))
                .build();
        String text = content(firstMessage(complete(params)));
        if (text.isBlank()) {
            throw new LlmException("empty answer: the model returned no summary text", true, null);
        }
        return text;
    }

    /** The user message of a summary request. */
    String summaryPrompt(SummaryTask task) {
        StringBuilder prompt = new StringBuilder();
        prompt.append("# Conversation\n\n");
        prompt.append("Times are UTC. Tool calls and their results are shown as [tool call <id>] and "
                + "[tool result <id>]; very long blocks are cut and marked …[cut].\n\n");
        prompt.append(transcript.render(task.messages())).append('\n');
        boolean update = !task.previousSummary().isBlank();
        if (update) {
            prompt.append("# Previous summary\n\n");
            prompt.append(task.previousSummary().strip()).append("\n\n");
        }
        prompt.append("# Task\n\n");
        prompt.append(update ? SummaryPrompt.UPDATE : SummaryPrompt.INITIAL).append("\n\n");
        prompt.append("# Format\n\n");
        prompt.append(SummaryPrompt.format()).append('\n');
        prompt.append("Write the content in ")
                .append(languageName(task.language()))
                .append("; the headings stay in English exactly as shown.\n");
        if (!task.unansweredCalls().isEmpty()) {
            prompt.append("These tool calls never got a result and never will: ")
                    .append(String.join(", ", task.unansweredCalls()))
                    .append(". Under Critical Context, name each as an unanswered call (its id and tool), "
                            + "so the agent does not wait for it.\n");
        }
        if (task.maxTokens() > 0) {
            prompt.append("Keep the whole summary under ")
                    .append(task.maxTokens())
                    .append(" tokens (a longer one is not accepted): be brief where detail does not matter, exact "
                            + "where it does, and shorten the previous summary's items if that is what it takes.\n");
        }
        if (task.retryReason() != null && !task.retryReason().isBlank()) {
            prompt.append("\nYour previous answer to this request was refused: ")
                    .append(task.retryReason().strip())
                    .append(". Write the summary again and fix that.\n");
        }
        return prompt.toString();
    }

    // ------------------------------------------------------------------ diary

    @Override
    public String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException {
        ChatCompletionCreateParams.Builder conversation = request()
                .addSystemMessage(DiaryPrompt.SYSTEM)
                .addUserMessage(diaryPrompt(task))
                .tools(tools(task));
        Set<String> changed = new LinkedHashSet<>();
        for (int round = 1; round <= MAX_TOOL_ROUNDS; round++) {
            ChatCompletionMessage answer = firstMessage(complete(conversation.build()));
            List<ChatCompletionMessageToolCall> calls = toolCalls(answer);
            String text = content(answer);
            if (calls.isEmpty()) {
                if (!text.isBlank()) {
                    return text;
                }
                if (!changed.isEmpty()) {
                    return "Updated " + String.join(" and ", changed) + ".";
                }
                throw new LlmException("empty answer: the model neither called a tool nor replied", true, null);
            }
            ChatCompletionAssistantMessageParam.Builder turn =
                    ChatCompletionAssistantMessageParam.builder().toolCalls(calls);
            if (!text.isBlank()) {
                turn.content(text);
            }
            conversation.addMessage(turn.build());
            for (ChatCompletionMessageToolCall call : calls) {
                ToolOutcome outcome = execute(call, editor);
                if (outcome.changed() != null) {
                    changed.add(outcome.changed());
                }
                conversation.addMessage(ChatCompletionToolMessageParam.builder()
                        .toolCallId(outcome.callId())
                        .content(outcome.result())
                        .build());
            }
        }
        throw new LlmException(
                "the diary update did not finish within " + MAX_TOOL_ROUNDS + " model calls (tool round limit)",
                false,
                null);
    }

    /** The user message of a diary update. */
    String diaryPrompt(DiaryTask task) {
        String daily = task.dailyDocument();
        StringBuilder prompt = new StringBuilder();
        prompt.append("# Conversation\n\n");
        prompt.append("User ")
                .append(task.user())
                .append(", session ")
                .append(task.session())
                .append(", ")
                .append(task.date())
                .append(". Times are UTC.\n\n");
        prompt.append(transcript.render(task.messages())).append('\n');
        prompt.append("# Task\n\n");
        prompt.append(DiaryPrompt.task(daily, task.date().toString(), languageName(task.language())));
        return prompt.toString();
    }

    private static List<ChatCompletionTool> tools(DiaryTask task) {
        List<String> documents = List.of(task.dailyDocument(), DocumentEditor.LONG_TERM);
        Map<String, Object> document = Map.of(
                "type",
                "string",
                "enum",
                documents,
                "description",
                "Which document: " + task.dailyDocument() + " (this day's diary) or " + DocumentEditor.LONG_TERM
                        + " (lasting facts about the user).");
        return List.of(
                tool(
                        "read",
                        "Returns the current text of a document; says so when it does not exist yet.",
                        ordered("document", document),
                        List.of("document")),
                tool(
                        "write",
                        "Replaces the whole document with the given content, creating it if needed. "
                                + "Use it to create a document, or when most of it changes.",
                        ordered(
                                "document",
                                document,
                                "content",
                                Map.of("type", "string", "description", "The complete new text (Markdown).")),
                        List.of("document", "content")),
                tool(
                        "edit",
                        "Replaces old_text with new_text in a document. old_text must be copied exactly "
                                + "from the document and occur in it exactly once; include a neighbouring line to make it unique. "
                                + "To add a line, use the line it should follow as old_text and repeat it at the start of new_text.",
                        ordered(
                                "document", document,
                                "old_text", Map.of("type", "string", "description", "Exact text to replace."),
                                "new_text", Map.of("type", "string", "description", "The replacement text.")),
                        List.of("document", "old_text", "new_text")));
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static ChatCompletionTool tool(
            String name, String description, Map<String, Object> properties, List<String> required) {
        FunctionParameters parameters = FunctionParameters.builder()
                .putAdditionalProperty("type", JsonValue.from("object"))
                .putAdditionalProperty("properties", JsonValue.from(properties))
                .putAdditionalProperty("required", JsonValue.from(required))
                .putAdditionalProperty("additionalProperties", JsonValue.from(false))
                .build();
        return ChatCompletionTool.ofFunction(ChatCompletionFunctionTool.builder()
                .function(FunctionDefinition.builder()
                        .name(name)
                        .description(description)
                        .parameters(parameters)
                        .build())
                .build());
    }

    private record ToolOutcome(String callId, String result, String changed) {}

    /** Runs one tool call; every problem becomes an {@code Error: ...} result for the model. */
    private static ToolOutcome execute(ChatCompletionMessageToolCall call, DocumentEditor editor) {
        if (!call.isFunction()) {
            String id = call.custom().map(c -> c.id()).orElse("unknown");
            return new ToolOutcome(id, "Error: only the function tools read, write and edit exist", null);
        }
        ChatCompletionMessageFunctionToolCall function = call.asFunction();
        String id;
        String name;
        String arguments;
        try {
            id = function.id();
            name = function.function().name();
            arguments = function.function().arguments();
        } catch (OpenAIInvalidDataException e) {
            return new ToolOutcome(
                    safeId(function), "Error: the tool call is incomplete (" + e.getMessage() + ")", null);
        }
        JsonNode args;
        try {
            args = Json.MAPPER.readTree(arguments == null || arguments.isBlank() ? "{}" : arguments);
        } catch (JsonProcessingException e) {
            return new ToolOutcome(
                    id,
                    "Error: arguments must be JSON (an object such as {\"document\": \"...\"}); " + "could not parse: "
                            + firstLine(e.getOriginalMessage()),
                    null);
        }
        if (args == null || !args.isObject()) {
            return new ToolOutcome(id, "Error: arguments must be a JSON object, got " + abbreviate(arguments), null);
        }
        try {
            switch (name) {
                case "read": {
                    String document = text(args, "document");
                    String content = editor.read(document);
                    return new ToolOutcome(
                            id,
                            content.isEmpty() ? "(" + document + " is empty: it does not exist yet)" : content,
                            null);
                }
                case "write": {
                    String document = text(args, "document");
                    String content = text(args, "content");
                    editor.write(document, content);
                    return new ToolOutcome(
                            id, "OK: wrote " + document + " (" + content.length() + " characters)", document);
                }
                case "edit": {
                    String document = text(args, "document");
                    String oldText = text(args, "old_text");
                    String newText = text(args, "new_text");
                    editor.edit(document, oldText, newText);
                    return new ToolOutcome(id, "OK: edited " + document, document);
                }
                default:
                    return new ToolOutcome(
                            id,
                            "Error: unknown tool '" + abbreviate(name) + "'; the tools are read, write and edit",
                            null);
            }
        } catch (IllegalArgumentException e) {
            return new ToolOutcome(id, "Error: " + e.getMessage(), null);
        }
    }

    private static String safeId(ChatCompletionMessageFunctionToolCall function) {
        try {
            return function.id();
        } catch (OpenAIInvalidDataException e) {
            return "unknown";
        }
    }

    private static String text(JsonNode args, String field) {
        JsonNode value = args.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("argument '" + field + "' is required and must be a string");
        }
        return value.asText();
    }

    // --------------------------------------------------------------- memories

    @Override
    public List<MemoryCandidate> extractMemories(ExtractTask task) throws LlmException {
        if (task.messages().isEmpty()) {
            return List.of();
        }
        ChatCompletionCreateParams params = request()
                .addSystemMessage(MemoryPrompts.EXTRACT_SYSTEM)
                .addUserMessage(MemoryPrompts.extract(task, transcript.render(task.messages())))
                .build();
        return MemoryPrompts.candidates(
                content(firstMessage(complete(params))),
                task,
                task.messages().get(task.messages().size() - 1).time());
    }

    @Override
    public MergeDecision mergeMemory(MergeTask task) throws LlmException {
        ChatCompletionCreateParams params = request()
                .addSystemMessage(MemoryPrompts.MERGE_SYSTEM)
                .addUserMessage(MemoryPrompts.merge(task))
                .build();
        return MemoryPrompts.decision(content(firstMessage(complete(params))), task);
    }

    // --------------------------------------------------------------- transport

    private ChatCompletionCreateParams.Builder request() {
        ChatCompletionCreateParams.Builder builder = ChatCompletionCreateParams.builder()
                .model(settings.model())
                .maxCompletionTokens(settings.maxOutputTokens());
        if (settings.temperature() != null) {
            builder.temperature(settings.temperature());
        }
        return builder;
    }

    /** One HTTP call, its failures mapped to {@link LlmException}. */
    private ChatCompletion complete(ChatCompletionCreateParams params) throws LlmException {
        try {
            return client.chat().completions().create(params);
        } catch (OpenAIServiceException e) {
            int status = e.statusCode();
            if (contextLengthExceeded(e)) {
                throw new ContextLengthExceededException(
                        "the LLM endpoint refused the prompt as longer than the " + "model's context (HTTP " + status
                                + "): " + abbreviate(e.getMessage()),
                        e);
            }
            boolean retryable = status == 408 || status == 409 || status == 429 || status >= 500;
            throw new LlmException(
                    "the LLM endpoint answered HTTP " + status + ": " + abbreviate(e.getMessage()), retryable, e);
        } catch (OpenAIIoException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new LlmException(
                    "the LLM request failed (" + cause.getClass().getSimpleName() + ": "
                            + abbreviate(cause.getMessage()) + ")",
                    true,
                    e);
        } catch (OpenAIInvalidDataException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new LlmException(
                    "the LLM endpoint sent an answer that is not a chat completion: "
                            + abbreviate(firstLine(cause.getMessage())),
                    true,
                    e);
        } catch (OpenAIRetryableException e) {
            throw new LlmException("the LLM request failed: " + abbreviate(e.getMessage()), true, e);
        } catch (OpenAIException e) {
            throw new LlmException("the LLM request failed: " + abbreviate(e.getMessage()), false, e);
        }
    }

    /**
     * OpenAI answers 400 with code {@code context_length_exceeded}; some compatible servers send no code,
     * only the words of the message, which are matched as a fallback.
     */
    static boolean contextLengthExceeded(OpenAIServiceException e) {
        if (e.statusCode() != 400) {
            return false;
        }
        if (e.code().filter("context_length_exceeded"::equals).isPresent()) {
            return true;
        }
        String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        return message.contains("context_length_exceeded") || message.contains("maximum context length");
    }

    private static ChatCompletionMessage firstMessage(ChatCompletion completion) throws LlmException {
        try {
            List<ChatCompletion.Choice> choices = completion.choices();
            if (choices.isEmpty()) {
                throw new LlmException("empty answer: the completion has no choices", true, null);
            }
            return choices.get(0).message();
        } catch (OpenAIInvalidDataException e) {
            throw new LlmException("empty answer: " + abbreviate(e.getMessage()), true, e);
        }
    }

    private static List<ChatCompletionMessageToolCall> toolCalls(ChatCompletionMessage message) throws LlmException {
        try {
            return message.toolCalls().orElse(List.of());
        } catch (OpenAIInvalidDataException e) {
            throw new LlmException("the answer's tool calls are malformed: " + abbreviate(e.getMessage()), true, e);
        }
    }

    /** The answer's text without a reasoning preamble or a fence around the whole of it. */
    private static String content(ChatCompletionMessage message) throws LlmException {
        String text;
        try {
            text = message.content().orElse("");
        } catch (OpenAIInvalidDataException e) {
            throw new LlmException("empty answer: " + abbreviate(e.getMessage()), true, e);
        }
        return clean(text);
    }

    static String clean(String answer) {
        String text = answer.strip();
        if (text.startsWith("<think>")) {
            int end = text.indexOf("</think>");
            if (end >= 0) {
                text = text.substring(end + "</think>".length()).strip();
            }
        }
        if (text.startsWith("```") && text.endsWith("```") && text.length() >= 6) {
            int firstNewline = text.indexOf('\n');
            if (firstNewline > 0 && firstNewline < text.length() - 3) {
                String info = text.substring(3, firstNewline).strip().toLowerCase(Locale.ROOT);
                if (info.isEmpty() || info.equals("markdown") || info.equals("md")) {
                    text = text.substring(firstNewline + 1, text.length() - 3).strip();
                }
            }
        }
        return text;
    }

    @Override
    public void close() {
        client.close();
    }

    // ----------------------------------------------------------------- helpers

    /** "English (en)" for a language tag, or the tag itself when Java does not know it. */
    static String languageName(String tag) {
        String name = Locale.forLanguageTag(tag).getDisplayLanguage(Locale.ENGLISH);
        return name.isBlank() || name.equalsIgnoreCase(tag) ? tag : name + " (" + tag + ")";
    }

    private static String firstLine(String text) {
        String value = String.valueOf(text);
        int newline = value.indexOf('\n');
        return newline < 0 ? value : value.substring(0, newline);
    }

    private static String abbreviate(String text) {
        String value = String.valueOf(text).replace('\n', ' ');
        return value.length() <= MAX_ERROR_CHARS ? value : value.substring(0, MAX_ERROR_CHARS) + "…";
    }

    // ----------------------------------------------------------------- prompts

    /** The words of a summary request. */
    static final class SummaryPrompt {
        static final String SYSTEM = """
                You keep the working memory of an AI agent. The agent's context window is full, so the older \
                part of its conversation is about to be dropped and replaced by the summary you write. After \
                that, your summary is all the agent will know about that part, so write it to let the agent \
                carry on exactly where it is, without asking the user to repeat anything.

                - Record facts: the goal, requirements and limits, the user's preferences, decisions and why \
                they were made, what was done, what failed and why, and what comes next.
                - Copy file paths, identifiers, names, commands, numbers, versions, URLs and error messages \
                character for character.
                - Leave out greetings, repetition and lines of reasoning that led nowhere.
                - Never add anything that is not in the conversation or the previous summary.
                - Answer with the summary alone, as Markdown, with nothing before or after it.""";

        static final String INITIAL = "Summarise the conversation above in the format below.";

        static final String UPDATE = """
                Merge the conversation above into the previous summary and answer with the whole updated \
                summary in the format below:
                - keep everything from the previous summary that still matters;
                - add the new progress, decisions and facts;
                - move items that are now finished to Done;
                - rewrite Next Steps so it says what comes next from here;
                - remove blockers that have been resolved.""";

        private static final Map<String, String> HINTS = Map.of(
                "Goal", "what the user wants to achieve, in one or two sentences",
                "Constraints & Preferences", "requirements, limits, deadlines, and how the user wants things done",
                "Progress", "",
                "Done", "finished work, with the results that matter",
                "In Progress", "work that has started and is not finished",
                "Blocked", "what cannot go on, and what it waits for",
                "Key Decisions", "choices that were made, each with its reason",
                "Next Steps", "a numbered list, in the order they should happen",
                "Critical Context",
                        "exact values the agent will need again: paths, identifiers, settings, "
                                + "error messages, data");

        private SummaryPrompt() {}

        /** The required structure, from {@link SummaryFormat} so prompt and validation cannot drift apart. */
        static String format() {
            StringBuilder out = new StringBuilder();
            out.append("Use exactly these headings, in this order, spelled in English as shown:\n\n");
            for (String section : SummaryFormat.SECTIONS) {
                out.append("## ").append(section).append(hint(section)).append('\n');
                if (section.equals("Progress")) {
                    for (String part : SummaryFormat.PROGRESS_PARTS) {
                        out.append("### ").append(part).append(hint(part)).append('\n');
                    }
                }
            }
            out.append("\nUnder every heading write short bullet points, or (none) when there is nothing for it; "
                    + "no heading may be left empty. Do not add other headings of these levels.\n");
            return out.toString();
        }

        private static String hint(String heading) {
            String hint = HINTS.getOrDefault(heading, "");
            return hint.isEmpty() ? "" : "   (" + hint + ")";
        }
    }

    /** The words of a diary update. */
    static final class DiaryPrompt {
        static final String SYSTEM = """
                You keep a user's diary: short Markdown notes that an AI agent reads in later sessions to \
                remember the user and their work. You change documents only through the tools read, write and \
                edit, and only two documents exist for you: the diary page of the day and MEMORY.md, the \
                user's lasting facts. Be accurate and brief; never invent anything that is not in the \
                conversation.""";

        private DiaryPrompt() {}

        static String task(String daily, String date, String language) {
            return "1. Pick out of the conversation what will be worth knowing later: the user's preferences, "
                    + "decisions and their reasons, the state of the work (what was done, what is next), "
                    + "important events, and lessons that will help next time (what worked, what failed and why).\n"
                    + "2. Read " + daily + ". If it does not exist yet, write it: a `# " + date + "` title and "
                    + "then one short bullet per item. If it has content, merge into it: prefer edit over "
                    + "rewriting, add what is new, correct what the conversation shows to be wrong, and never "
                    + "remove anything else. Keep it concise and in time order, and start each new bullet with "
                    + "the time it happened (HH:MM).\n"
                    + "3. Lasting facts about the user (preferences, long-lived decisions, standing constraints) "
                    + "also belong in " + DocumentEditor.LONG_TERM + ": read it and merge them in the same way. "
                    + "Day-to-day progress stays out of it.\n"
                    + "4. Write the notes in " + language + ". Copy paths, identifiers, numbers and error "
                    + "messages exactly.\n"
                    + "5. When you are done, reply in one or two sentences saying what you changed. If nothing "
                    + "in the conversation is worth keeping, change nothing and reply exactly [SILENT].\n";
        }
    }
}
