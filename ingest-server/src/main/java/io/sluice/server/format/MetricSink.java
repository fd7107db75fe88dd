package io.sluice.server.format;

/**
 * Receives decoded series and samples. Implemented by the Kafka layer's record router (it canonicalises
 * and hashes the labels and fills the shards' batches), by the decode benchmarks and by tests.
 *
 * <p>Call order for one record: for each series either {@code beginSeries(), label()* ,
 * endLabels()} or {@code canonicalSeries()}, then {@code sample()} one or more times. A decoder
 * never emits a series without samples. Byte ranges passed in are valid only during the call: a
 * sink that keeps labels copies them. Every method is called on the decoding consumer thread.
 *
 * <p>When {@link PayloadDecoder#decode} throws, the sink may have seen any prefix of this call
 * sequence, including a series cut off after {@code beginSeries()}; the caller discards everything
 * the record produced.
 */
public interface MetricSink {
    /** Starts a series given as label pairs in any order; label() follows 0..n times, then endLabels(). */
    void beginSeries();

    /** One label; name and value are UTF-8 bytes, unvalidated, possibly empty value. */
    void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen);

    /** Ends the labels of the current series. */
    void endLabels();

    /** Starts a series whose labels are already in Sluice's canonical encoding (native format). */
    void canonicalSeries(byte[] buf, int off, int len);

    /** A sample of the current series. NaN payloads must reach the sink bit-exactly. */
    void sample(long timestampMs, double value);
}
