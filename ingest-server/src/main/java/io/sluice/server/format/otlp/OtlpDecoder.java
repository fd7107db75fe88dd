package io.sluice.server.format.otlp;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;

public final class OtlpDecoder implements PayloadDecoder {
    public OtlpDecoder(DecoderLimits limits) {
    }

    @Override
    public void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        throw new UnsupportedOperationException();
    }
}
