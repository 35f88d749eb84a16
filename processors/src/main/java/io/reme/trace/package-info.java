/**
 * Trace context on records: the W3C {@code traceparent} and {@code tracestate} a producer or an HTTP request
 * carries, checked and handed on to every record the pipeline derives from it, so a message can be followed to
 * the LLM call it caused. No tracing library here: the headers are carried as they came.
 */
package io.reme.trace;
