package io.sluice.server.kafka;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a record that cannot be stored: counted by reason, logged (at most one line per
 * reason per 10 s, with topic, partition and offset) and, if configured, copied to the dead-letter
 * topic. The consumer then goes on with the next record: a bad record never stalls its partition.
 * Thread-safe; shared by the consumer threads of one {@link KafkaIngest}.
 */
final class RejectedRecords {
    private static final Logger LOG = LoggerFactory.getLogger(RejectedRecords.class);

    private final IngestMetrics metrics;
    private final DeadLetterPublisher deadLetters; // null: no dead-letter topic
    private final RateLimitedLog log;

    RejectedRecords(IngestMetrics metrics, DeadLetterPublisher deadLetters) {
        this(metrics, deadLetters, new RateLimitedLog(LOG, 10, TimeUnit.SECONDS, System::nanoTime));
    }

    RejectedRecords(IngestMetrics metrics, DeadLetterPublisher deadLetters, RateLimitedLog log) {
        this.metrics = metrics;
        this.deadLetters = deadLetters;
        this.log = log;
    }

    void reject(ConsumerRecord<byte[], byte[]> record, String reason, String message, long samples, Throwable internal) {
        metrics.rejected(reason, samples);
        String line = "rejected record " + record.topic() + "-" + record.partition() + "@" + record.offset()
                + " (" + (record.value() == null ? 0 : record.value().length) + " bytes, reason " + reason + "): " + message
                + (deadLetters == null ? "" : "; copied to the dead-letter topic");
        if (internal != null) {
            log.error(reason, line, internal);
        } else {
            log.warn(reason, line);
        }
        if (deadLetters != null) {
            deadLetters.publish(record, reason, message);
        }
    }

    /** Before a commit: the dead-letter copies of every rejected record up to here are acknowledged. */
    void flush() {
        if (deadLetters != null) {
            deadLetters.flush();
        }
    }
}
