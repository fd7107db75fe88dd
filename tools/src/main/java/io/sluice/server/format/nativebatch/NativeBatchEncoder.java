package io.sluice.server.format.nativebatch;

import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.CRC_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.FLAG_CRC32C;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.FLAG_TIMESTAMP_DELTAS;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.HEADER_LENGTH;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.MAGIC;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.SERIES_COUNT_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.VERSION_1;

import io.sluice.server.format.ByteWriter;
import java.util.zip.CRC32C;

/**
 * Writes {@code sluice} native batches ({@link NativeBatchDescriptor}) for the load generator, the
 * demo and tests. Reusable and allocation-free once its buffer has grown to the largest batch:
 * {@code reset(base)}, then per series {@code beginSeries(canonicalLabels), sample()+, endSeries()},
 * then {@code finish()}. Labels must already be canonical ({@link io.sluice.core.labels.CanonicalLabels}); the encoder
 * copies them as they are. Not thread-safe.
 */
public final class NativeBatchEncoder {
    private final ByteWriter out;
    private final int flags;
    private final CRC32C crc = new CRC32C();
    private long baseTimestampMs;
    private long previousTimestampMs;
    private int seriesCount;
    private int sampleCountPos = -1;
    private int seriesSamples;

    /**
     * @param timestampDeltas write timestamps as zigzag varint deltas (9–11 bytes a sample for regular
     *     scrapes) instead of raw 8-byte values (16 bytes a sample); raw ones decode about 3× faster,
     *     so use deltas only where bandwidth matters more (docs/format/native-batch.md)
     * @param crc32c add a CRC32C of the body; Kafka already checks its record batches, other transports may not
     */
    public NativeBatchEncoder(int initialCapacityBytes, boolean timestampDeltas, boolean crc32c) {
        out = new ByteWriter(initialCapacityBytes);
        flags = (timestampDeltas ? FLAG_TIMESTAMP_DELTAS : 0) | (crc32c ? FLAG_CRC32C : 0);
        reset(0);
    }

    /**
     * Starts a new batch. {@code baseTimestampMs} is what delta timestamps count from (best: the
     * batch's smallest or most common timestamp); without deltas it is not written.
     */
    public void reset(long baseTimestampMs) {
        this.baseTimestampMs = (flags & FLAG_TIMESTAMP_DELTAS) != 0 ? baseTimestampMs : 0;
        out.reset();
        out.writeIntLE(MAGIC);
        out.writeByte(VERSION_1);
        out.writeByte(flags);
        out.writeByte(0);
        out.writeByte(0);
        out.writeIntLE(0);
        out.writeIntLE(0);
        out.writeLongLE(this.baseTimestampMs);
        seriesCount = 0;
        sampleCountPos = -1;
    }

    public void beginSeries(byte[] canonicalLabels) {
        beginSeries(canonicalLabels, 0, canonicalLabels.length);
    }

    public void beginSeries(byte[] canonicalLabels, int off, int len) {
        if (sampleCountPos >= 0) {
            throw new IllegalStateException("beginSeries() before endSeries() of the previous series");
        }
        out.writeIntLE(len);
        out.writeBytes(canonicalLabels, off, len);
        sampleCountPos = out.length();
        out.writeIntLE(0);
        seriesSamples = 0;
        previousTimestampMs = baseTimestampMs;
    }

    /** Appends a sample; the value's bits are written as they are (NaN payloads included). */
    public void sample(long timestampMs, double value) {
        if (sampleCountPos < 0) {
            throw new IllegalStateException("call beginSeries() first");
        }
        if ((flags & FLAG_TIMESTAMP_DELTAS) != 0) {
            long delta = timestampMs - previousTimestampMs;
            out.writeVarint((delta << 1) ^ (delta >> 63));
            previousTimestampMs = timestampMs;
        } else {
            out.writeLongLE(timestampMs);
        }
        out.writeLongLE(Double.doubleToRawLongBits(value));
        seriesSamples++;
    }

    public void endSeries() {
        if (sampleCountPos < 0 || seriesSamples == 0) {
            throw new IllegalStateException("endSeries() needs a series with at least one sample");
        }
        out.putIntLE(sampleCountPos, seriesSamples);
        sampleCountPos = -1;
        seriesCount++;
    }

    /** Completes the header; returns the batch's length, its bytes being {@code buffer()[0, length)}. */
    public int finish() {
        if (sampleCountPos >= 0) {
            throw new IllegalStateException("finish() inside a series: call endSeries() first");
        }
        out.putIntLE(SERIES_COUNT_OFFSET, seriesCount);
        if ((flags & FLAG_CRC32C) != 0) {
            crc.reset();
            crc.update(out.buffer(), HEADER_LENGTH, out.length() - HEADER_LENGTH);
            out.putIntLE(CRC_OFFSET, (int) crc.getValue());
        }
        return out.length();
    }

    public byte[] buffer() {
        return out.buffer();
    }

    public int length() {
        return out.length();
    }
}
