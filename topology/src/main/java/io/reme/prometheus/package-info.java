/**
 * Metrics for Prometheus: the pipeline's own events (through the processors' and workers'
 * {@code PipelineMetrics} seam), search latency, index size, Kafka Streams client metrics and JVM
 * metrics, in one Micrometer registry that {@code GET /metrics} renders.
 */
package io.reme.prometheus;
