package io.sluice.bench.labels;

import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.labels.MurmurHash3;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** The series hash of a 10-label set (about 200 canonical bytes), against hash4j's MurmurHash3. */
@State(Scope.Thread)
public class HashBenchmark extends AbstractBenchmark {
    byte[] canonical;
    MemorySegment offHeap;
    private Arena arena;
    private final Hasher128 hash4j = Hashing.murmur3_128();

    @Setup
    public void setUp() {
        canonical = new NodeExporterSeries(1).canonical(0);
        arena = Arena.ofShared();
        offHeap = arena.allocate(canonical.length);
        MemorySegment.copy(canonical, 0, offHeap, ValueLayout.JAVA_BYTE, 0, canonical.length);
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long murmurByteArray() {
        return MurmurHash3.hash64(canonical, 0, canonical.length);
    }

    @Benchmark
    public long murmurOffHeapSegment() {
        return MurmurHash3.hash64(offHeap, 0, canonical.length);
    }

    /** The reference implementation, for comparison; allocates its 128-bit result. */
    @Benchmark
    public long hash4jMurmur3() {
        return hash4j.hashBytesTo128Bits(canonical, 0, canonical.length).getLeastSignificantBits();
    }
}
