package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.dlq.DlqReason;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/** Only a record's own refusal is dead-lettered; a producer that cannot write is never the record's fault. */
class SendFailuresTest {
    @Test
    void aRefusedRecordIsTheRecordsFault() {
        assertEquals(SendFailures.RECORD, SendFailures.of(new RecordTooLargeException("20 MB")));
        assertEquals(SendFailures.RECORD, SendFailures.of(new InvalidRecordException("null key on a compacted topic")));
        assertEquals(DlqReason.OUTPUT_TOO_LARGE, SendFailures.reason(new RecordTooLargeException("20 MB")));
        assertEquals(DlqReason.OUTPUT_REJECTED, SendFailures.reason(new InvalidRecordException("no key")));
    }

    @Test
    void aFencedOrClosedProducerIsNot() {
        assertEquals(SendFailures.PRODUCER, SendFailures.of(new ProducerFencedException("fenced")));
        assertEquals(SendFailures.PRODUCER, SendFailures.of(new SaslAuthenticationException("bad password")));
        assertEquals(
                SendFailures.PRODUCER,
                SendFailures.of(new IllegalStateException("Cannot perform operation after producer has been closed")));
    }

    @Test
    void brokerTroubleIsRetried() {
        assertEquals(SendFailures.TRANSIENT, SendFailures.of(new TimeoutException("expired")));
        assertEquals(SendFailures.TRANSIENT, SendFailures.of(new NotLeaderOrFollowerException("moving")));
        assertEquals(SendFailures.TRANSIENT, SendFailures.of(new TopicAuthorizationException("ACL missing")));
    }
}
