/**
 * Wiring: the one function that builds the application's {@code Topology} (used by tests and
 * production alike) and the Streams properties derived from the configuration.
 */
package io.reme.topology;
