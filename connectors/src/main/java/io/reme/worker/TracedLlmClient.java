package io.reme.worker;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.ExtractTask;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.MergeDecision;
import io.reme.provider.MergeTask;
import io.reme.provider.SummaryTask;
import java.util.List;

/**
 * An LLM client whose every task is a span named as OpenTelemetry's GenAI conventions name client calls ({@code
 * <operation> <model>}, with {@code gen_ai.operation.name}, {@code gen_ai.provider.name}, {@code
 * gen_ai.request.model}): each attempt at a summary, an extraction or a merge is one {@code chat}, at a diary update (a
 * tool loop over the documents) one {@code invoke_agent}; the worker's retries are its spans' siblings. Prompts and answers are not
 * recorded. Otherwise the client it wraps, unchanged.
 */
final class TracedLlmClient implements LlmClient {
    static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
    static final AttributeKey<String> MODEL = AttributeKey.stringKey("gen_ai.request.model");

    private final LlmClient client;
    private final Tracer tracer;
    private final String provider;
    private final String model;

    TracedLlmClient(LlmClient client, Tracer tracer) {
        this.client = client;
        this.tracer = tracer;
        // Ids are "provider:model" (openai:gpt-4o-mini), or one word for a provider without a model.
        String id = client.id();
        int colon = id.indexOf(':');
        this.provider = colon < 0 ? id : id.substring(0, colon);
        this.model = colon < 0 ? id : id.substring(colon + 1);
    }

    /** A task of the client that may fail as the client does. */
    private interface Task<T> {
        T run() throws LlmException;
    }

    private <T> T traced(String operation, Task<T> task) throws LlmException {
        Span span = tracer.spanBuilder(operation + " " + model)
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(WorkerTracing.OPERATION, operation)
                .setAttribute(PROVIDER, provider)
                .setAttribute(MODEL, model)
                .startSpan();
        try (Scope _ = span.makeCurrent()) {
            return task.run();
        } catch (LlmException | RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            span.setAttribute("error.type", e.getClass().getName());
            throw e;
        } finally {
            span.end();
        }
    }

    @Override
    public String id() {
        return client.id();
    }

    @Override
    public String summarize(SummaryTask task) throws LlmException {
        return traced("chat", () -> client.summarize(task));
    }

    @Override
    public String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException {
        return traced("invoke_agent", () -> client.updateDiary(task, editor));
    }

    @Override
    public List<MemoryCandidate> extractMemories(ExtractTask task) throws LlmException {
        return traced("chat", () -> client.extractMemories(task));
    }

    @Override
    public MergeDecision mergeMemory(MergeTask task) throws LlmException {
        return traced("chat", () -> client.mergeMemory(task));
    }

    @Override
    public void close() {
        client.close();
    }
}
