/**
 * An in-process single-node Kafka cluster, so the application and its integration tests run without an
 * external broker.
 */
package io.reme.broker;
