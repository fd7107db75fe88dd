package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;
import static io.sluice.server.format.ProtoWire.wireType;

import io.sluice.server.format.ByteSpans;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;

/**
 * Reads an uncompressed remote-write 2.0 {@code Request} (see {@link RemoteWriteV2Schema}) into a sink,
 * in place: label names and values are handed over as slices of the symbols in the input.
 *
 * <p>Protobuf allows the symbols after the series that refer to them, so the request is read twice:
 * a first pass records where each symbol lies (and rejects 1.0 fields), a second reads the series.
 * Each TimeSeries is skimmed first, as in 1.0, so that its labels reach the sink before its samples
 * whatever order its fields come in. Label references are checked on every series, also one without
 * samples; a reference past the symbols or an odd number of them rejects the record.
 *
 * <p>Not thread-safe; owned by its {@link RemoteWriteV2Decoder}.
 */
final class RequestV2Reader implements RequestReader {
    private final ByteSpans symbols = new ByteSpans(1024);
    private int pendingNameRef;

    private final SkipCounts skipped = new SkipCounts();
    private final SeriesSkim skim = new SeriesSkim(RemoteWriteV2Schema.TIMESERIES_LABELS_REFS, true,
            RemoteWriteV2Schema.TIMESERIES_SAMPLES, RemoteWriteV2Schema.TIMESERIES_HISTOGRAMS,
            RemoteWriteV2Schema.TIMESERIES_EXEMPLARS, RemoteWriteV2Schema.TIMESERIES_METADATA);

    @Override
    public void read(WireReader in, MetricSink sink) throws PayloadException {
        skipped.clear();
        int start = in.position();
        readSymbols(in);
        in.position(start);
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "Request");
            if (fieldNumber(tag) == RemoteWriteV2Schema.REQUEST_TIMESERIES) {
                int outerLimit = in.pushLimit(in.readLength("Request.timeseries"));
                readTimeSeries(in, sink);
                in.popLimit(outerLimit);
            } else {
                skipField(in, tag, tagPos, "Request");
            }
        }
    }

    @Override
    public SkipCounts skipped() {
        return skipped;
    }

    /** The first pass: every symbol's span, the structure of the top level, no 1.0 fields. */
    private void readSymbols(WireReader in) throws PayloadException {
        symbols.clear();
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "Request");
            int field = fieldNumber(tag);
            if (field == RemoteWriteV2Schema.REQUEST_SYMBOLS || field == RemoteWriteV2Schema.REQUEST_TIMESERIES) {
                String name = field == RemoteWriteV2Schema.REQUEST_SYMBOLS ? "Request.symbols" : "Request.timeseries";
                expectWireType(in, tag, LEN, tagPos, name);
                int len = in.readLength(name);
                if (field == RemoteWriteV2Schema.REQUEST_SYMBOLS) {
                    symbols.add(ByteSpans.INPUT, in.position(), len);
                }
                in.skip(len, name);
            } else if (field >= RemoteWriteV2Schema.FIRST_V1_FIELD && field <= RemoteWriteV2Schema.LAST_V1_FIELD) {
                throw in.error(Reason.UNSUPPORTED_VERSION, tagPos, "field " + field + " at the top level: a"
                        + " remote-write 1.0 WriteRequest, read as 2.0; give the record a Content-Type header of"
                        + " application/x-protobuf (without proto=), or configure the topic as prometheus-remote-write");
            } else {
                skipField(in, tag, tagPos, "Request");
            }
        }
    }

    /** Reads the TimeSeries that fills the reader up to its limit. */
    private void readTimeSeries(WireReader in, MetricSink sink) throws PayloadException {
        int end = in.limit();
        skim.skim(in, skipped);
        if (skim.samples == 0) {
            skipped.seriesWithoutSamples++;
        } else {
            sink.beginSeries();
        }
        labels(in, skim.labelsFrom, skim.labelsTo, skim.samples == 0 ? null : sink);
        if (skim.samples > 0) {
            sink.endLabels();
            WriteRequestReader.emit(in, RemoteWriteSchema.TIMESERIES_SAMPLES, skim.samplesFrom, skim.samplesTo, sink);
        }
        in.position(end);
    }

    /**
     * Resolves the label references between two positions the skim found, packed or not, pairing them
     * across fields; emits each pair to {@code sink} unless it is null (a series without samples, whose
     * references are still checked).
     */
    private void labels(WireReader in, int from, int to, MetricSink sink) throws PayloadException {
        pendingNameRef = -1;
        if (from >= 0) {
            in.position(from);
            while (in.position() < to) {
                int tagPos = in.position();
                int tag = readTag(in, "TimeSeries");
                if (fieldNumber(tag) != RemoteWriteV2Schema.TIMESERIES_LABELS_REFS) {
                    skipField(in, tag, tagPos, "TimeSeries");
                } else if (wireType(tag) == VARINT) {
                    labelRef(in, tagPos, in.readVarint("TimeSeries.labels_refs"), sink);
                } else {
                    int outerLimit = in.pushLimit(in.readLength("TimeSeries.labels_refs"));
                    while (in.hasRemaining()) {
                        int refPos = in.position();
                        labelRef(in, refPos, in.readVarint("TimeSeries.labels_refs"), sink);
                    }
                    in.popLimit(outerLimit);
                }
            }
        }
        if (pendingNameRef >= 0) {
            throw in.error(Reason.BAD_SCHEMA, from, "TimeSeries.labels_refs holds an odd number of references");
        }
    }

    private void labelRef(WireReader in, int refPos, long ref, MetricSink sink) throws PayloadException {
        if (ref < 0 || ref >= symbols.count()) {
            throw in.error(Reason.BAD_SCHEMA, refPos, "label reference " + Long.toUnsignedString(ref)
                    + " past the " + symbols.count() + " symbols");
        }
        if (pendingNameRef < 0) {
            pendingNameRef = (int) ref;
            return;
        }
        if (sink != null) {
            byte[] buf = in.buffer();
            int name = pendingNameRef;
            int value = (int) ref;
            sink.label(buf, symbols.offset(name), symbols.length(name), buf, symbols.offset(value), symbols.length(value));
        }
        pendingNameRef = -1;
    }
}
