/**
 * What the application asks of the embedded default ({@link io.reme.local.LocalRuntime}): a broker and the file
 * sinks' Connect worker in its own JVM. The implementation is in the embedded module, found at run time, so the
 * application jar for a cluster is built without Kafka's server and Connect runtime.
 */
package io.reme.local;
