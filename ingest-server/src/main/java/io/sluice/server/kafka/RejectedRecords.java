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
    private final boolean deadLetterSkippedLines;
    private final RateLimitedLog log;

    /** The {@code sluice.error.reason} of a stored record copied because it lost lines. */
    static final String SKIPPED_LINES_REASON = "skipped_lines";

    RejectedRecords(IngestMetrics metrics, DeadLetterPublisher deadLetters, boolean deadLetterSkippedLines) {
        this(metrics, deadLetters, deadLetterSkippedLines, new RateLimitedLog(LOG, 10, TimeUnit.SECONDS, System::nanoTime));
    }

    RejectedRecords(IngestMetrics metrics, DeadLetterPublisher deadLetters, boolean deadLetterSkippedLines, RateLimitedLog log) {
        this.metrics = metrics;
        this.deadLetters = deadLetters;
        this.deadLetterSkippedLines = deadLetterSkippedLines;
        this.log = log;
    }

    /**
     * Counts and logs a rejected record, and copies it to the dead-letter topic if there is one. With a
     * dead-letter topic the log line waits for the copy's outcome, so that it says once and truly whether
     * the record is in the topic ({@code copied to dead-letter topic T} or {@code NOT copied to dead-letter
     * topic T: why}).
     */
    void reject(ConsumerRecord<byte[], byte[]> record, String reason, String message, long samples, Throwable internal) {
        metrics.rejected(reason, samples);
        String line = "rejected record " + record.topic() + "-" + record.partition() + "@" + record.offset()
                + " (" + (record.value() == null ? 0 : record.value().length) + " bytes, reason " + reason + "): " + message;
        if (deadLetters == null) {
            log(reason, line, internal);
        } else {
            deadLetters.publish(record, reason, message, 0, error -> log(reason, line + outcome(error), internal));
        }
    }

    /**
     * A stored record that lost {@code skippedLines} lines (influx): copied to the dead-letter topic when
     * that is enabled ({@code kafka.dead-letter-skipped-lines}), with reason {@value #SKIPPED_LINES_REASON}
     * and the count in a header. A failed copy is logged (rate-limited); a good one is not (the skipped
     * line itself is logged by the consumer).
     */
    void skippedLines(ConsumerRecord<byte[], byte[]> record, long skippedLines, String lastSkipped) {
        if (deadLetters == null || !deadLetterSkippedLines || skippedLines <= 0) {
            return;
        }
        deadLetters.publish(record, SKIPPED_LINES_REASON, skippedLines + " line(s) skipped, the last: " + lastSkipped,
                skippedLines, error -> {
                    if (error != null) {
                        log.warn(SKIPPED_LINES_REASON, "record " + record.topic() + "-" + record.partition() + "@"
                                + record.offset() + " with " + skippedLines + " skipped line(s)" + outcome(error));
                    }
                });
    }

    private String outcome(Exception error) {
        return error == null ? "; copied to dead-letter topic " + deadLetters.topic()
                : "; NOT copied to dead-letter topic " + deadLetters.topic() + ": " + error.getMessage();
    }

    private void log(String reason, String line, Throwable internal) {
        if (internal != null) {
            log.error(reason, line, internal);
        } else {
            log.warn(reason, line);
        }
    }

    /** Before a commit: the dead-letter copies of every rejected record up to here are acknowledged. */
    void flush() {
        if (deadLetters != null) {
            deadLetters.flush();
        }
    }
}
