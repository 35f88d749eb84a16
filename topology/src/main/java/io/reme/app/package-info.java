/** The running application: embedded or external broker, topics, Kafka Streams and the HTTP API, started and stopped in order. */
package io.reme.app;
