package io.reme.worker;

import io.reme.dlq.DlqReason;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Why a worker's write failed, as far as what to do next is concerned: the record itself can never be
 * written (dead-letter it, bounded, and go on), the producer can never write again (stop, do not
 * blame the record), or anything else (retry later).
 */
enum SendFailures {
    /** This record is refused whatever happens next: too large, invalid, unserialisable. */
    RECORD,
    /** The producer is unusable: fenced, closed, not authenticated or authorised for the cluster. */
    PRODUCER,
    /** A broker away, a timeout, a missing ACL on one topic: trying again later may work. */
    TRANSIENT;

    static SendFailures of(Throwable failure) {
        if (failure instanceof RecordTooLargeException
                || failure instanceof RecordBatchTooLargeException
                || failure instanceof InvalidRecordException
                || failure instanceof SerializationException) {
            return RECORD;
        }
        if (failure instanceof ProducerFencedException
                || failure instanceof InvalidProducerEpochException
                || failure instanceof OutOfOrderSequenceException
                || failure instanceof AuthenticationException
                || failure instanceof ClusterAuthorizationException
                || failure instanceof UnsupportedVersionException
                || failure instanceof IllegalStateException) {
            // KafkaProducer throws IllegalStateException once it has been closed.
            return PRODUCER;
        }
        return TRANSIENT;
    }

    /** The dead-letter reason of a record that cannot be written. */
    static DlqReason reason(Throwable failure) {
        return failure instanceof RecordTooLargeException || failure instanceof RecordBatchTooLargeException
                ? DlqReason.OUTPUT_TOO_LARGE
                : DlqReason.OUTPUT_REJECTED;
    }
}
