package io.reme.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A chat framework's memory of one conversation kept in a ReMe session: what the LangChain4j and Spring AI adapters
 * share. Reading answers the session's served context in the chat-completions shape ({@link OpenAiContext}: the
 * summary of the compacted past first, as a system message). Writing takes the whole list a framework holds and
 * appends to the session only the messages it does not have yet, since the session is append-only: a framework
 * rewrites its list every turn, the pipeline keeps each message once.
 *
 * <p><b>Which messages are new.</b> The list is aligned with the session's served messages by the longest run of
 * the session's newest messages found in the list (compared by role, text and tool-call ids; a tool's output is
 * compared by the call it answers only, as the server may serve it truncated). The messages after that run are
 * sent. So a list that kept the session's messages and added some (the normal turn, also after the framework evicted
 * old ones or the server compacted them into the summary) sends just the additions. Messages the framework changed,
 * inserted or removed before that run stay as the session has them (the server cannot rewrite its past), with one
 * exception: a system message there that the session does not serve (a framework's system prompt, which a framework
 * puts first and which may have been compacted into the summary since) is appended, so the model keeps seeing it. A
 * list that shares none of the session's newest messages is sent whole, after what the session holds.
 *
 * <p><b>Read your writes.</b> The pipeline applies messages asynchronously; a write waits (bounded by {@code
 * visibility}) until the session serves the last message sent, so the framework's next read, which may come at once,
 * sees it. Each message sent carries a new id, and a retried send is a repeat the session drops.
 */
public final class SessionMemory {
    private static final Duration FIRST_POLL = Duration.ofMillis(20);
    private static final Duration LAST_POLL = Duration.ofMillis(250);

    private final RemeClient client;
    private final Duration visibility;
    private final RemeClient.Sleeper sleeper;

    /** Over this client; a write waits up to {@code visibility} for the session to serve it. */
    public SessionMemory(RemeClient client, Duration visibility) {
        this(client, visibility, duration -> Thread.sleep(duration));
    }

    SessionMemory(RemeClient client, Duration visibility, RemeClient.Sleeper sleeper) {
        this.client = Objects.requireNonNull(client, "client");
        this.visibility = Objects.requireNonNull(visibility, "visibility");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    /**
     * The session's served messages, ready to send (the summary first as a system message when there is one);
     * empty for a session the server does not know.
     *
     * @throws IllegalArgumentException when {@code session} is not a valid session id
     */
    public List<OpenAiMessage> read(String session) {
        MessageEnvelope.requireId("session", session);
        try {
            return client.openAiContext(session).messages();
        } catch (RemeException.NotFound e) {
            return List.of();
        }
    }

    /**
     * Appends to the session the messages of {@code wanted} it does not hold yet (see the class's description), as
     * messages of {@code user}, and waits until the session serves them.
     *
     * @return the messages sent (empty when the session held them all)
     * @throws IllegalStateException when the session did not serve them within the visibility timeout
     */
    public List<OpenAiMessage> append(String session, String user, List<OpenAiMessage> wanted) {
        MessageEnvelope.requireId("session", session);
        MessageEnvelope.requireId("user", user);
        List<OpenAiMessage> fresh = fresh(read(session), wanted);
        if (fresh.isEmpty()) {
            return List.of();
        }
        List<MessageEnvelope> envelopes = new ArrayList<>();
        for (OpenAiMessage message : fresh) {
            envelopes.add(MessageEnvelope.of(session, user, message)
                    .withId(UUID.randomUUID().toString()));
        }
        client.sendMessages(envelopes);
        awaitServed(session, envelopes.getLast().id());
        return List.copyOf(fresh);
    }

    /** The messages of {@code wanted} to append: those after the held run, and system messages the session lacks. */
    static List<OpenAiMessage> fresh(List<OpenAiMessage> served, List<OpenAiMessage> wanted) {
        int held = heldUpTo(served, wanted);
        Set<String> known = served.stream().map(SessionMemory::fingerprint).collect(Collectors.toSet());
        List<OpenAiMessage> fresh = new ArrayList<>();
        for (OpenAiMessage message : wanted.subList(0, held)) {
            if ("system".equals(message.role()) && !known.contains(fingerprint(message))) {
                fresh.add(message);
            }
        }
        fresh.addAll(wanted.subList(held, wanted.size()));
        return fresh;
    }

    /**
     * Where the messages the session does not hold begin in {@code wanted}: just after the longest run of the
     * session's newest messages found in it (the latest such run when two are as long), 0 when it holds none of them.
     */
    static int heldUpTo(List<OpenAiMessage> served, List<OpenAiMessage> wanted) {
        List<String> server = served.stream().map(SessionMemory::fingerprint).toList();
        List<String> framework = wanted.stream().map(SessionMemory::fingerprint).toList();
        int bestEnd = 0;
        int bestRun = 0;
        for (int end = 1; end <= framework.size(); end++) {
            int run = 0;
            while (run < end
                    && run < server.size()
                    && framework.get(end - 1 - run).equals(server.get(server.size() - 1 - run))) {
                run++;
            }
            if (run > 0 && run >= bestRun) {
                bestRun = run;
                bestEnd = end;
            }
        }
        return bestEnd;
    }

    /** What two sides must agree on for a message to be the same: role, text, and the tool calls it makes or answers. */
    static String fingerprint(OpenAiMessage message) {
        String calls = message.toolCalls().stream()
                .map(call -> call.id() + ":" + call.function().name())
                .collect(Collectors.joining(","));
        if ("tool".equals(message.role())) {
            return "tool\u0000" + message.toolCallId();
        }
        String text = message.text();
        return message.role() + "\u0000" + (text == null ? "" : text.strip()) + "\u0000" + calls;
    }

    private void awaitServed(String session, String lastId) {
        long deadline = System.nanoTime() + visibility.toNanos();
        Duration pause = FIRST_POLL;
        while (true) {
            try {
                Set<String> ids = client.context(session, true).messages().stream()
                        .map(SessionContext.LiveMessage::id)
                        .collect(Collectors.toSet());
                if (ids.contains(lastId)) {
                    return;
                }
            } catch (RemeException.NotFound e) {
                // The session exists once the pipeline processed its first message.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("session " + session + " did not serve the messages sent within "
                        + visibility + "; they are written and will appear");
            }
            try {
                sleeper.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for session " + session, e);
            }
            pause = pause.multipliedBy(2).compareTo(LAST_POLL) > 0 ? LAST_POLL : pause.multipliedBy(2);
        }
    }
}
