/**
 * The embedded default's in-process Kafka: a single-node KRaft broker ({@link
 * io.reme.embedded.EmbeddedKafka}), so the application and its integration tests run without an external
 * broker, and a Kafka Connect worker running the file sink connectors ({@link io.reme.embedded.FileSinks}),
 * with the configuration each connector takes in a Connect cluster. The only product code on Kafka's
 * server and Connect-runtime classes, which are not Kafka's public API: import control keeps them here.
 */
package io.reme.embedded;
