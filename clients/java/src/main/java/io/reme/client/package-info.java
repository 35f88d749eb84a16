/**
 * The Java client of ReMe Streams' HTTP API: {@link io.reme.client.RemeClient} (every route a platform needs, answers
 * as records, refusals as {@link io.reme.client.RemeException} by status, 429 and 503 retried after their {@code
 * Retry-After}, pages followed by cursor), {@link io.reme.client.MessageProducer} (messages straight to the {@code
 * messages} topic, for platforms on Kafka) and {@link io.reme.client.SessionMemory} (a chat framework's conversation
 * kept in a session, which the adapters in {@code langchain4j} and {@code springai} build on). Depends on the JDK's
 * HTTP client and Jackson only; Kafka's client and the frameworks are the caller's.
 */
package io.reme.client;
