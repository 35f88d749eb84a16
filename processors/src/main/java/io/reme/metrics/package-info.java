/**
 * The seam through which the pipeline reports what it does (messages in, tokens counted, compaction
 * outcomes, dead letters, LLM calls), so the processors and workers stay free of any metrics library;
 * the application exports the events as Prometheus metrics.
 */
package io.reme.metrics;
