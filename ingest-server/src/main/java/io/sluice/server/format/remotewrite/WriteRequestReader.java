package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;

import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;

/**
 * Reads an uncompressed remote-write 1.0 {@code WriteRequest} (see {@link RemoteWriteSchema}) into a
 * sink, in place: label bytes are handed over as slices of the input, no object per series or sample.
 *
 * <p>Protobuf allows a TimeSeries' fields in any order and interleaved, but the sink needs all labels
 * before the first sample. So each TimeSeries is read twice: a skim over its fields (tags and lengths
 * only) finds the span from the first to the last label, the span of the samples, and counts the
 * samples; then labels and samples are parsed and emitted from their spans. As Prometheus writes
 * labels first and samples next, the spans hold nothing else and the skim costs two varints a field.
 * A TimeSeries without samples (native histograms only) emits nothing, though its labels are parsed.
 *
 * <p>Not thread-safe; owned by its {@link RemoteWriteDecoder}.
 */
final class WriteRequestReader implements RequestReader {
    /** Receives the labels of a series without samples: parsed to check them, then dropped. */
    private static final MetricSink DISCARD = new MetricSink() {
        @Override
        public void beginSeries() {
        }

        @Override
        public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        }

        @Override
        public void endLabels() {
        }

        @Override
        public void canonicalSeries(byte[] buf, int off, int len) {
        }

        @Override
        public void sample(long timestampMs, double value) {
        }
    };

    private final SkipCounts skipped = new SkipCounts();
    private final SeriesSkim skim = new SeriesSkim(RemoteWriteSchema.TIMESERIES_LABELS, false,
            RemoteWriteSchema.TIMESERIES_SAMPLES, RemoteWriteSchema.TIMESERIES_HISTOGRAMS, RemoteWriteSchema.TIMESERIES_EXEMPLARS, -1);

    @Override
    public void read(WireReader in, MetricSink sink) throws PayloadException {
        skipped.clear();
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "WriteRequest");
            switch (fieldNumber(tag)) {
                case RemoteWriteSchema.WRITE_REQUEST_TIMESERIES -> {
                    expectWireType(in, tag, LEN, tagPos, "WriteRequest.timeseries");
                    int outerLimit = in.pushLimit(in.readLength("WriteRequest.timeseries"));
                    readTimeSeries(in, sink);
                    in.popLimit(outerLimit);
                }
                case RemoteWriteSchema.WRITE_REQUEST_METADATA -> {
                    expectWireType(in, tag, LEN, tagPos, "WriteRequest.metadata");
                    in.skip(in.readLength("WriteRequest.metadata"), "WriteRequest.metadata");
                    skipped.metadata++;
                }
                case RemoteWriteSchema.V2_REQUEST_SYMBOLS, RemoteWriteSchema.V2_REQUEST_TIMESERIES ->
                        throw in.error(Reason.UNSUPPORTED_VERSION, tagPos, "field " + fieldNumber(tag)
                                + " at the top level: a remote-write 2.0 Request, read as 1.0; give the record a"
                                + " Content-Type header with proto=io.prometheus.write.v2.Request, or configure the"
                                + " topic as prometheus-remote-write-v2");
                default -> skipField(in, tag, tagPos, "WriteRequest");
            }
        }
    }

    @Override
    public SkipCounts skipped() {
        return skipped;
    }

    /** Reads the TimeSeries that fills the reader up to its limit. */
    private void readTimeSeries(WireReader in, MetricSink sink) throws PayloadException {
        int end = in.limit();
        skim.skim(in, skipped);
        if (skim.samples == 0) {
            // Nothing to store, but a malformed label still rejects the record as protobuf-java would.
            if (skim.labelsFrom >= 0) {
                emit(in, RemoteWriteSchema.TIMESERIES_LABELS, skim.labelsFrom, skim.labelsTo, DISCARD);
            }
            skipped.seriesWithoutSamples++;
            in.position(end);
            return;
        }
        sink.beginSeries();
        if (skim.labelsFrom >= 0) {
            emit(in, RemoteWriteSchema.TIMESERIES_LABELS, skim.labelsFrom, skim.labelsTo, sink);
        }
        sink.endLabels();
        emit(in, RemoteWriteSchema.TIMESERIES_SAMPLES, skim.samplesFrom, skim.samplesTo, sink);
        in.position(end);
    }

    /**
     * Parses the labels or the samples (by field number) between two positions the skim found; other
     * fields there are skipped again. Remote-write 2.0's TimeSeries keeps samples as field 2 with the
     * same Sample message, so its reader emits samples through here too.
     */
    static void emit(WireReader in, int field, int from, int to, MetricSink sink) throws PayloadException {
        in.position(from);
        while (in.position() < to) {
            int tagPos = in.position();
            int tag = readTag(in, "TimeSeries");
            if (fieldNumber(tag) != field) {
                skipField(in, tag, tagPos, "TimeSeries");
                continue;
            }
            int outerLimit = in.pushLimit(in.readLength("TimeSeries field"));
            if (field == RemoteWriteSchema.TIMESERIES_LABELS) {
                readLabel(in, sink);
            } else {
                readSample(in, sink);
            }
            in.popLimit(outerLimit);
        }
    }

    /** A Label filling the reader to its limit. Absent fields are empty; a repeated field's last value wins. */
    private static void readLabel(WireReader in, MetricSink sink) throws PayloadException {
        int nameOff = in.position();
        int nameLen = 0;
        int valueOff = nameOff;
        int valueLen = 0;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "Label");
            switch (fieldNumber(tag)) {
                case RemoteWriteSchema.LABEL_NAME -> {
                    expectWireType(in, tag, LEN, tagPos, "Label.name");
                    nameLen = in.readLength("Label.name");
                    nameOff = in.position();
                    in.position(nameOff + nameLen);
                }
                case RemoteWriteSchema.LABEL_VALUE -> {
                    expectWireType(in, tag, LEN, tagPos, "Label.value");
                    valueLen = in.readLength("Label.value");
                    valueOff = in.position();
                    in.position(valueOff + valueLen);
                }
                default -> skipField(in, tag, tagPos, "Label");
            }
        }
        byte[] buf = in.buffer();
        sink.label(buf, nameOff, nameLen, buf, valueOff, valueLen);
    }

    /** A Sample filling the reader to its limit. Absent fields are 0 (value +0.0, timestamp 0). */
    private static void readSample(WireReader in, MetricSink sink) throws PayloadException {
        long valueBits = 0;
        long timestampMs = 0;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "Sample");
            switch (fieldNumber(tag)) {
                case RemoteWriteSchema.SAMPLE_VALUE -> {
                    expectWireType(in, tag, I64, tagPos, "Sample.value");
                    valueBits = in.readLongLE("Sample.value");
                }
                case RemoteWriteSchema.SAMPLE_TIMESTAMP -> {
                    expectWireType(in, tag, VARINT, tagPos, "Sample.timestamp");
                    timestampMs = in.readVarint("Sample.timestamp");
                }
                default -> skipField(in, tag, tagPos, "Sample");
            }
        }
        sink.sample(timestampMs, Double.longBitsToDouble(valueBits));
    }
}
