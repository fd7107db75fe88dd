package io.sluice.server.format.nativebatch;

import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.CRC_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.FLAGS_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.FLAG_CRC32C;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.FLAG_TIMESTAMP_DELTAS;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.HEADER_LENGTH;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.KNOWN_FLAGS;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.MAGIC;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.MIN_DELTA_SAMPLE_LENGTH;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.RAW_SAMPLE_LENGTH;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.RESERVED_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.VERSION_1;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.VERSION_OFFSET;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;
import java.util.zip.CRC32C;

/**
 * Decodes {@code sluice} native batches ({@link NativeBatchDescriptor}) straight from the record
 * bytes: labels go to the sink as the canonical slice of the record, samples as two loads each.
 * Holds no buffer; only {@link DecoderLimits#maxRecordBytes()} applies.
 *
 * <p>Not thread-safe: one instance per consumer thread, and every field is owned by that thread.
 */
public final class NativeBatchDecoder implements PayloadDecoder {

    private final DecoderLimits limits;
    private final WireReader in = new WireReader();
    private final CRC32C crc = new CRC32C();

    public NativeBatchDecoder(DecoderLimits limits) {
        this.limits = limits;
    }

    @Override
    public void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        in.wrapRecord(value, off, len, limits);
        int flags = readHeader(value, off, len);
        long seriesCount = Integer.toUnsignedLong(WireReader.intLE(value, off + NativeBatchDescriptor.SERIES_COUNT_OFFSET));
        long baseTimestampMs = WireReader.longLE(value, off + BASE_TIMESTAMP_OFFSET);
        boolean deltas = (flags & FLAG_TIMESTAMP_DELTAS) != 0;
        for (long i = 0; i < seriesCount; i++) {
            readSeries(sink, deltas, baseTimestampMs);
        }
        if (in.hasRemaining()) {
            throw in.error(Reason.BAD_BATCH, in.position(), in.remaining() + " bytes after the last of "
                    + seriesCount + " series");
        }
    }

    /** Checks the header and the CRC; leaves the reader at the first series and returns the flags. */
    private int readHeader(byte[] value, int off, int len) throws PayloadException {
        int magic = in.readIntLE("magic");
        if (magic != MAGIC) {
            throw in.error(Reason.BAD_MAGIC, off, "expected magic 'SLCB' (0x" + Integer.toHexString(MAGIC)
                    + " LE), found 0x" + Integer.toHexString(magic));
        }
        int version = in.readU8("version");
        if (version != VERSION_1) {
            throw in.error(Reason.UNSUPPORTED_VERSION, off + VERSION_OFFSET, "version " + version
                    + ", this decoder reads version " + VERSION_1);
        }
        in.require(HEADER_LENGTH - FLAGS_OFFSET, "header");
        int flags = value[off + FLAGS_OFFSET] & 0xFF;
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw in.error(Reason.BAD_HEADER, off + FLAGS_OFFSET, "unknown flags 0x" + Integer.toHexString(flags));
        }
        if (value[off + RESERVED_OFFSET] != 0 || value[off + RESERVED_OFFSET + 1] != 0) {
            throw in.error(Reason.BAD_HEADER, off + RESERVED_OFFSET, "reserved bytes are not zero");
        }
        if ((flags & FLAG_TIMESTAMP_DELTAS) == 0 && WireReader.longLE(value, off + BASE_TIMESTAMP_OFFSET) != 0) {
            throw in.error(Reason.BAD_HEADER, off + BASE_TIMESTAMP_OFFSET,
                    "baseTimestampMs must be 0 without the TIMESTAMP_DELTAS flag");
        }
        checkCrc(value, off, len, flags);
        in.position(off + HEADER_LENGTH);
        return flags;
    }

    private void checkCrc(byte[] value, int off, int len, int flags) throws PayloadException {
        int stored = WireReader.intLE(value, off + CRC_OFFSET);
        if ((flags & FLAG_CRC32C) == 0) {
            if (stored != 0) {
                throw in.error(Reason.BAD_HEADER, off + CRC_OFFSET, "crc32c field is set without the CRC32C flag");
            }
            return;
        }
        crc.reset();
        crc.update(value, off + HEADER_LENGTH, len - HEADER_LENGTH);
        int computed = (int) crc.getValue();
        if (computed != stored) {
            throw in.error(Reason.BAD_CHECKSUM, off + CRC_OFFSET, "stored crc32c 0x" + Integer.toHexString(stored)
                    + ", computed 0x" + Integer.toHexString(computed));
        }
    }

    private void readSeries(MetricSink sink, boolean deltas, long baseTimestampMs) throws PayloadException {
        int seriesPos = in.position();
        long labelsLength = Integer.toUnsignedLong(in.readIntLE("labelsLength"));
        in.require(labelsLength, "labels");
        int labelsOff = in.position();
        in.position(labelsOff + (int) labelsLength);
        long sampleCount = Integer.toUnsignedLong(in.readIntLE("sampleCount"));
        if (sampleCount == 0) {
            throw in.error(Reason.BAD_BATCH, seriesPos, "series without samples");
        }
        in.require(sampleCount * (deltas ? MIN_DELTA_SAMPLE_LENGTH : RAW_SAMPLE_LENGTH), "samples");
        sink.canonicalSeries(in.buffer(), labelsOff, (int) labelsLength);
        if (deltas) {
            readDeltaSamples(sink, (int) sampleCount, baseTimestampMs);
        } else {
            readRawSamples(sink, (int) sampleCount);
        }
    }

    /** The caller checked that {@code count} raw samples are there. */
    private void readRawSamples(MetricSink sink, int count) {
        byte[] buf = in.buffer();
        int p = in.position();
        for (int i = 0; i < count; i++, p += RAW_SAMPLE_LENGTH) {
            sink.sample(WireReader.longLE(buf, p), Double.longBitsToDouble(WireReader.longLE(buf, p + 8)));
        }
        in.position(p);
    }

    private void readDeltaSamples(MetricSink sink, int count, long baseTimestampMs) throws PayloadException {
        long timestampMs = baseTimestampMs;
        for (int i = 0; i < count; i++) {
            long zigzag = in.readVarint("timestamp delta");
            timestampMs += (zigzag >>> 1) ^ -(zigzag & 1);
            sink.sample(timestampMs, Double.longBitsToDouble(in.readLongLE("sample value")));
        }
    }
}
