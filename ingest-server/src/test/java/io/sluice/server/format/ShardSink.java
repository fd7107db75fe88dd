package io.sluice.server.format;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * A sink that stores what a decoder emits in a real head shard (with its WAL in a real directory),
 * the way the consumer will: labels validated and canonicalized by the head's {@link LabelsBuilder},
 * series and samples batched and applied by the shard. The shard is driven by hand on the test thread.
 * {@link #stored()} reads every series back as {@link SeriesTextSink} lines.
 */
public final class ShardSink implements MetricSink, AutoCloseable {
    private final StreamRegistry streams = new StreamRegistry();
    private final Shard shard;
    private final int stream;
    private final LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
    private final Map<LabelsStatus, Integer> rejectedSeries = new EnumMap<>(LabelsStatus.class);
    private ShardBatch batch;
    private long offset;
    private boolean seriesAccepted;

    public ShardSink(Path walDirectory) throws IOException {
        shard = new Shard(0, ShardOptions.defaults(walDirectory).withWalSegmentBytes(1 << 20), streams, new MemoryAccounting(),
                System::nanoTime);
        shard.start();
        stream = streams.idOf("metrics", 0);
    }

    /** Marks that what follows comes from the next Kafka record. */
    public void nextRecord() {
        offset++;
        if (batch == null) {
            batch = shard.acquireBatch();
        }
        if (!batch.record(stream, offset)) {
            flush();
            batch = shard.acquireBatch();
            batch.record(stream, offset);
        }
    }

    @Override
    public void beginSeries() {
        builder.reset();
    }

    @Override
    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        builder.add(nameBuf, nameOff, nameLen, valueBuf, valueOff, valueLen);
    }

    @Override
    public void endLabels() {
        accept(builder.build());
    }

    @Override
    public void canonicalSeries(byte[] buf, int off, int len) {
        accept(builder.fromCanonical(buf, off, len));
    }

    private void accept(LabelsStatus status) {
        seriesAccepted = status == LabelsStatus.OK;
        if (!seriesAccepted) {
            rejectedSeries.merge(status, 1, Integer::sum);
        } else if (!batch.series(builder.hash(), builder.bytes(), 0, builder.length())) {
            continueInNewBatch();
        }
    }

    @Override
    public void sample(long timestampMs, double value) {
        if (seriesAccepted && !batch.sample(timestampMs, Double.doubleToRawLongBits(value))) {
            continueInNewBatch();
            batch.sample(timestampMs, Double.doubleToRawLongBits(value));
        }
    }

    private void continueInNewBatch() {
        flush();
        batch = shard.acquireBatch();
        batch.record(stream, offset);
        batch.series(builder.hash(), builder.bytes(), 0, builder.length());
    }

    /** Applies what was batched. */
    public void flush() {
        if (batch != null) {
            shard.submit(batch);
            batch = null;
        }
        while (shard.queueDepth() > 0) {
            shard.doWork();
        }
    }

    /** Series the head refused, by why. */
    public Map<LabelsStatus, Integer> rejectedSeries() {
        return rejectedSeries;
    }

    public long count(ShardStats.Counter counter) {
        return shard.stats().get(counter);
    }

    /** Every stored sample, as SeriesTextSink lines, series by series in id order, each in time order. */
    public List<String> stored() {
        flush();
        List<String> lines = new ArrayList<>();
        RoaringBitmap ids = shard.labelIndex().select(Matcher.re("__name__", ".+"));
        SeriesSnapshot snapshot = new SeriesSnapshot();
        for (PeekableIntIterator it = ids.getIntIterator(); it.hasNext(); ) {
            shard.snapshot(it.next(), Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            String series = SeriesTextSink.text(snapshot.labels().toMap());
            for (SeriesSnapshot.Samples samples = snapshot.samples(); samples.next(); ) {
                lines.add(SeriesTextSink.line(series, samples.timestampMs(), samples.valueBits()));
            }
        }
        return lines;
    }

    @Override
    public void close() throws IOException {
        shard.close();
    }
}
