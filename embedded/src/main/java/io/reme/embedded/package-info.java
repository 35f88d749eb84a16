/**
 * The embedded default's in-process Kafka: a single-node KRaft broker ({@link
 * io.reme.embedded.EmbeddedKafka}), so the demo and the integration tests run without an external broker, and a
 * Kafka Connect worker running the file sink connectors ({@link io.reme.embedded.FileSinks}), with the
 * configuration each connector takes in a Connect cluster. The application reaches them through {@link
 * io.reme.local.LocalRuntime} ({@link io.reme.embedded.EmbeddedRuntime}); this module is the only code on Kafka's
 * server and Connect-runtime classes, which are not Kafka's public API, and the application jar a cluster runs is
 * built without it.
 */
package io.reme.embedded;
