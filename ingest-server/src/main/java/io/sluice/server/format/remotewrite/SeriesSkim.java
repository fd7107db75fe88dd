package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;
import static io.sluice.server.format.ProtoWire.wireType;

import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;
import io.sluice.server.format.remotewrite.RequestReader.SkipCounts;

/**
 * The first of the two passes over a TimeSeries, for both remote-write versions (whose TimeSeries differ
 * in field numbers only): one walk over its fields, tags and lengths only, that finds the span from the
 * first to the last label field and from the first to the last sample, counts the samples, and skips and
 * counts histograms, exemplars and metadata. The readers then parse labels and samples from their spans,
 * labels first, whatever order the fields came in.
 *
 * <p>Mutable and reused: owned by one reader.
 */
final class SeriesSkim {
    private final int labelsField;
    private final boolean labelsMayBeVarints;
    private final int samplesField;
    private final int histogramsField;
    private final int exemplarsField;
    private final int metadataField;

    int labelsFrom;
    int labelsTo;
    int samplesFrom;
    int samplesTo;
    int samples;

    /**
     * @param labelsMayBeVarints whether the labels field is a repeated varint, which may come unpacked
     * @param metadataField the field of per-series metadata, or -1 if the version has none
     */
    SeriesSkim(int labelsField, boolean labelsMayBeVarints, int samplesField, int histogramsField, int exemplarsField,
            int metadataField) {
        this.labelsField = labelsField;
        this.labelsMayBeVarints = labelsMayBeVarints;
        this.samplesField = samplesField;
        this.histogramsField = histogramsField;
        this.exemplarsField = exemplarsField;
        this.metadataField = metadataField;
    }

    /** Walks the TimeSeries that fills {@code in} to its limit, leaving the reader at its end. */
    void skim(WireReader in, SkipCounts skipped) throws PayloadException {
        labelsFrom = -1;
        labelsTo = -1;
        samplesFrom = -1;
        samplesTo = -1;
        samples = 0;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "TimeSeries");
            int field = fieldNumber(tag);
            if (field == labelsField) {
                if (labelsMayBeVarints && wireType(tag) == VARINT) {
                    in.readVarint("TimeSeries labels");
                } else {
                    skipLengthDelimited(in, tag, tagPos, "TimeSeries labels");
                }
                labelsFrom = labelsFrom < 0 ? tagPos : labelsFrom;
                labelsTo = in.position();
            } else if (field == samplesField) {
                skipLengthDelimited(in, tag, tagPos, "TimeSeries.samples");
                samplesFrom = samplesFrom < 0 ? tagPos : samplesFrom;
                samplesTo = in.position();
                samples++;
            } else if (field == histogramsField) {
                skipLengthDelimited(in, tag, tagPos, "TimeSeries.histograms");
                skipped.histograms++;
            } else if (field == exemplarsField) {
                skipLengthDelimited(in, tag, tagPos, "TimeSeries.exemplars");
                skipped.exemplars++;
            } else if (field == metadataField) {
                skipLengthDelimited(in, tag, tagPos, "TimeSeries.metadata");
                skipped.metadata++;
            } else {
                skipField(in, tag, tagPos, "TimeSeries");
            }
        }
    }

    private static void skipLengthDelimited(WireReader in, int tag, int tagPos, String field) throws PayloadException {
        expectWireType(in, tag, LEN, tagPos, field);
        in.skip(in.readLength(field), field);
    }
}
