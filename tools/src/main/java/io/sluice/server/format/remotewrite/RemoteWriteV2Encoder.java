package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.tag;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.EncoderState;
import io.sluice.server.format.RecordEncoder;
import java.util.Arrays;

/**
 * Writes {@code prometheus-remote-write-v2} record values: a snappy-compressed remote-write 2.0
 * {@code io.prometheus.write.v2.Request} (see {@link RemoteWriteV2Schema}): every distinct string once in
 * {@code symbols} (the first being ""), each series' labels as packed pairs of references, each sample
 * with both fields written so -0.0 and NaN payloads round-trip. Symbols come first, then the series.
 * The values carry {@link #CONTENT_TYPE} so a consumer of any remote-write topic reads them as 2.0.
 *
 * <p>Memory: the symbol table (its bytes, 8 bytes of spans a symbol and an open-addressing index), the
 * series and request buffers, grown to the largest request; nothing is allocated per label or sample
 * once they have grown. Not thread-safe.
 */
public final class RemoteWriteV2Encoder implements RecordEncoder {
    /** The Content-Type the remote-write 2.0 specification gives a 2.0 request. */
    public static final String CONTENT_TYPE = "application/x-protobuf;proto=io.prometheus.write.v2.Request";

    private static final int SYMBOL_TAG = tag(RemoteWriteV2Schema.REQUEST_SYMBOLS, LEN);
    private static final int TIMESERIES_TAG = tag(RemoteWriteV2Schema.REQUEST_TIMESERIES, LEN);
    private static final int REFS_TAG = tag(RemoteWriteV2Schema.TIMESERIES_LABELS_REFS, LEN);
    private static final int SAMPLE_TAG = tag(RemoteWriteV2Schema.TIMESERIES_SAMPLES, LEN);
    private static final byte[] EMPTY = new byte[0];

    private final ByteWriter symbolBytes = new ByteWriter(4096);
    private int[] symbolOffset = new int[256];
    private int[] symbolLength = new int[256];
    private int symbolCount;
    private int[] index = new int[512];      // open addressing: symbol number + 1, 0 = free
    private final ByteWriter timeseries;     // the request's TimeSeries fields, written as series end
    private final ByteWriter refs = new ByteWriter(256);
    private final ByteWriter samples = new ByteWriter(1024);
    private final ByteWriter request;
    private final SnappyWriter snappy = new SnappyWriter();
    private final EncoderState state = new EncoderState();

    public RemoteWriteV2Encoder(int initialCapacityBytes) {
        timeseries = new ByteWriter(initialCapacityBytes);
        request = new ByteWriter(initialCapacityBytes);
        reset();
    }

    @Override
    public void reset() {
        symbolBytes.reset();
        symbolCount = 0;
        Arrays.fill(index, 0);
        timeseries.reset();
        snappy.clear();
        state.reset();
        symbol(EMPTY); // the specification's first symbol
    }

    @Override
    public void beginSeries() {
        state.beginSeries();
        refs.reset();
        samples.reset();
    }

    @Override
    public void label(byte[] name, byte[] value) {
        state.requireSeries();
        refs.writeVarint(symbol(name));
        refs.writeVarint(symbol(value));
    }

    @Override
    public void sample(long timestampMs, double value) {
        state.sample();
        RemoteWriteEncoder.writeSample(samples, SAMPLE_TAG, timestampMs, value);
    }

    @Override
    public void endSeries() {
        state.endSeries();
        int refsField = refs.length() == 0 ? 0 : 1 + ByteWriter.varintSize(refs.length()) + refs.length();
        timeseries.writeByte(TIMESERIES_TAG);
        timeseries.writeVarint(refsField + samples.length());
        if (refsField > 0) {
            timeseries.writeByte(REFS_TAG);
            timeseries.writeVarint(refs.length());
            timeseries.writeBytes(refs.buffer(), 0, refs.length());
        }
        timeseries.writeBytes(samples.buffer(), 0, samples.length());
    }

    @Override
    public int finishValues() {
        state.finish();
        request.reset();
        byte[] bytes = symbolBytes.buffer();
        for (int i = 0; i < symbolCount; i++) {
            request.writeByte(SYMBOL_TAG);
            request.writeVarint(symbolLength[i]);
            request.writeBytes(bytes, symbolOffset[i], symbolLength[i]);
        }
        request.writeBytes(timeseries.buffer(), 0, timeseries.length());
        snappy.compress(request.buffer(), request.length());
        return 1;
    }

    /** The uncompressed Request of the last {@link #finishValues()}: {@code uncompressed()[0, uncompressedLength())}. */
    public byte[] uncompressed() {
        return request.buffer();
    }

    public int uncompressedLength() {
        return request.length();
    }

    @Override
    public byte[] buffer() {
        return snappy.buffer();
    }

    @Override
    public int valueLength(int i) {
        return snappy.length();
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }

    /** The number of {@code text} in the symbol table, added if new. */
    private int symbol(byte[] text) {
        int mask = index.length - 1;
        int slot = hash(text) & mask;
        byte[] bytes = symbolBytes.buffer();
        while (index[slot] != 0) {
            int s = index[slot] - 1;
            if (Arrays.equals(bytes, symbolOffset[s], symbolOffset[s] + symbolLength[s], text, 0, text.length)) {
                return s;
            }
            slot = (slot + 1) & mask;
        }
        if (symbolCount == symbolOffset.length) {
            symbolOffset = Arrays.copyOf(symbolOffset, symbolCount * 2);
            symbolLength = Arrays.copyOf(symbolLength, symbolCount * 2);
        }
        int s = symbolCount++;
        symbolOffset[s] = symbolBytes.length();
        symbolLength[s] = text.length;
        symbolBytes.writeBytes(text, 0, text.length);
        index[slot] = s + 1;
        if (symbolCount * 2 > index.length) {
            rehash();
        }
        return s;
    }

    private void rehash() {
        index = new int[index.length * 2];
        int mask = index.length - 1;
        byte[] bytes = symbolBytes.buffer();
        for (int s = 0; s < symbolCount; s++) {
            int slot = hash(bytes, symbolOffset[s], symbolLength[s]) & mask;
            while (index[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            index[slot] = s + 1;
        }
    }

    private static int hash(byte[] text) {
        return hash(text, 0, text.length);
    }

    /** FNV-1a, then a final mix so that the low bits (the slot) depend on every byte. */
    private static int hash(byte[] b, int off, int len) {
        int h = 0x811C9DC5;
        for (int i = off; i < off + len; i++) {
            h = (h ^ (b[i] & 0xFF)) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }
}
