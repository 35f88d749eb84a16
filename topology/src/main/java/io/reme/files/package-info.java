/**
 * The working directory in the embedded default: an in-process Kafka Connect worker running the file
 * sink connectors ({@link io.reme.files.FileSinks}), with the configuration each connector takes in a
 * Connect cluster.
 */
package io.reme.files;
