/**
 * The dead-letter contract: why a record was rejected and the headers that carry the reason and the
 * record's origin to the {@code dlq} topic, so nothing bad is lost and nothing bad reaches state.
 */
package io.reme.dlq;
