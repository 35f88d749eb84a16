/**
 * Trace context on records: the W3C {@code traceparent} and {@code tracestate} a producer or an HTTP request
 * carries, checked and handed on to every record the pipeline derives from it, so a message can be followed to
 * the LLM call it caused ({@link io.reme.trace.TraceHeaders}), and the spans of the pipeline's own steps on
 * OpenTelemetry's API ({@link io.reme.trace.RecordTracing}), which record nothing until the application installs
 * the SDK.
 */
package io.reme.trace;
