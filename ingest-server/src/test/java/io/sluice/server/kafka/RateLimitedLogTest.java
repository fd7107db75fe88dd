package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** At most one line per key per interval, on an injected clock. */
class RateLimitedLogTest {
    @Test
    void logsOncePerKeyPerInterval() {
        AtomicLong nowNs = new AtomicLong(1_000);
        RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), 10, TimeUnit.SECONDS, nowNs::get);
        assertThat(log.warn("bad_magic", "first")).isTrue();
        assertThat(log.warn("bad_magic", "second")).isFalse();
        assertThat(log.warn("truncated", "another reason")).isTrue();
        nowNs.addAndGet(TimeUnit.SECONDS.toNanos(9));
        assertThat(log.warn("bad_magic", "third")).isFalse();
        nowNs.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(log.warn("bad_magic", "fourth, with 2 suppressed")).isTrue();
        assertThat(log.warn("bad_magic", "fifth")).isFalse();
    }
}
