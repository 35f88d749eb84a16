package io.reme.message;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Renders messages as the readable transcript an LLM is given: one header line per message
 * ({@code [2026-11-30 10:15] user (alice):}) and one line per block, with tool calls and their
 * results shown as {@code [tool call <id>] name(arguments)} and {@code [tool result <id>] name: output}.
 * Block bodies are kept on one line and cut to {@code maxBlockChars} ({@link TextCut}) so one huge
 * output cannot crowd out the conversation.
 */
public final class Transcript {
    private final DateTimeFormatter time;
    private final int maxBlockChars;

    public Transcript(ZoneId zone, int maxBlockChars) {
        this.time = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(zone);
        this.maxBlockChars = maxBlockChars;
    }

    public String render(List<Message> messages) {
        StringBuilder out = new StringBuilder();
        for (Message message : messages) {
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append('[')
                    .append(time.format(message.time()))
                    .append("] ")
                    .append(message.role().wire());
            if (message.name() != null && !message.name().isBlank()) {
                out.append(" (").append(message.name()).append(')');
            } else if (message.role() == Role.USER) {
                out.append(" (").append(message.user()).append(')');
            }
            out.append(":\n");
            for (Block block : message.content()) {
                out.append(line(block)).append('\n');
            }
        }
        return out.toString();
    }

    private String line(Block block) {
        if (block instanceof Block.Text text) {
            return cut(text.text());
        } else if (block instanceof Block.Thinking thinking) {
            return "[thinking] " + cut(thinking.thinking());
        } else if (block instanceof Block.ToolUse use) {
            return "[tool call " + use.id() + "] " + use.name() + "(" + cut(use.input()) + ")";
        } else if (block instanceof Block.ToolResult result) {
            return "[tool result " + result.id() + "] " + result.name() + ": " + cut(result.output());
        } else if (block instanceof Block.Image image) {
            return "[image] " + (image.url() != null ? image.url() : "(inline " + image.mediaType() + ")");
        }
        throw new IllegalStateException("unknown block " + block);
    }

    private String cut(String text) {
        String flat = text.replace("\r", "").replace('\n', ' ');
        return flat.length() <= maxBlockChars
                ? flat
                : flat.substring(0, TextCut.end(flat, maxBlockChars)).stripTrailing() + " …[cut]";
    }
}
