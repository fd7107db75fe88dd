package io.sluice.core.labels;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The per-series paths allocate nothing in steady state: building and hashing label sets, taking
 * canonical input, walking it with a view, and interning symbols that exist. Measured with the
 * thread's allocated-bytes counter after a warm-up; the bound allows only measurement noise.
 */
class AllocationTest {
    private static final long SEED = 0xA110CL;
    private static final int SETS = 128;
    private static final int LABELS = 10;
    private static final int WARMUP = 200_000;
    private static final int MEASURED = 1_000_000;
    private static final long BOUND_BYTES = 4096;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final byte[][][] names = new byte[SETS][LABELS][];
    private final byte[][][] values = new byte[SETS][LABELS][];
    private final byte[][] canonical = new byte[SETS][];
    private long sink;

    AllocationTest() {
        Random random = new Random(SEED);
        LabelsBuilder b = new LabelsBuilder(LabelLimits.DEFAULT);
        for (int s = 0; s < SETS; s++) {
            List<Integer> order = new ArrayList<>();
            for (int l = 0; l < LABELS; l++) {
                order.add(l);
            }
            Collections.shuffle(order, random); // add() sees labels unsorted
            b.reset();
            for (int k = 0; k < LABELS; k++) {
                int l = order.get(k);
                names[s][k] = utf8(l == 0 ? "__name__" : "label_" + l);
                values[s][k] = utf8(l == 0 ? "metric_" + s : "value-" + random.nextInt(1000) + "-" + "x".repeat(l));
                b.add(names[s][k], 0, names[s][k].length, values[s][k], 0, values[s][k].length);
            }
            assertThat(b.build()).isEqualTo(LabelsStatus.OK);
            canonical[s] = java.util.Arrays.copyOf(b.bytes(), b.length());
        }
    }

    @Test
    void buildingAndHashingTenLabelSetsAllocatesNothing() {
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        Loop loop = iterations -> {
            for (int i = 0; i < iterations; i++) {
                int s = i % SETS;
                builder.reset();
                for (int k = 0; k < LABELS; k++) {
                    builder.add(names[s][k], 0, names[s][k].length, values[s][k], 0, values[s][k].length);
                }
                if (builder.build() != LabelsStatus.OK) {
                    throw new AssertionError("set " + s);
                }
                sink += builder.hash();
            }
        };
        assertThat(allocatedBytes(loop, WARMUP)).isLessThan(BOUND_BYTES);
    }

    @Test
    void canonicalInputAndViewsAllocateNothing() {
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        LabelsView view = new LabelsView();
        byte[] wanted = utf8("label_3");
        Loop loop = iterations -> {
            for (int i = 0; i < iterations; i++) {
                byte[] c = canonical[i % SETS];
                if (builder.fromCanonical(c, 0, c.length) != LabelsStatus.OK) {
                    throw new AssertionError("set " + i % SETS);
                }
                view.wrap(builder.bytes(), 0, builder.length());
                while (view.next()) {
                    sink += view.valueLength();
                }
                sink += view.find(wanted, 0, wanted.length) ? view.valueOffset() : 0;
                sink += builder.hash() + view.hash();
            }
        };
        assertThat(allocatedBytes(loop, WARMUP)).isLessThan(BOUND_BYTES);
    }

    @Test
    void internAndFindOfExistingSymbolsAllocateNothing() {
        SymbolTable symbols = new SymbolTable();
        for (int s = 0; s < SETS; s++) {
            for (int k = 0; k < LABELS; k++) {
                symbols.intern(names[s][k], 0, names[s][k].length);
                symbols.intern(values[s][k], 0, values[s][k].length);
            }
        }
        int count = symbols.count();
        Loop loop = iterations -> {
            for (int i = 0; i < iterations; i++) {
                byte[][] n = names[i % SETS];
                byte[][] v = values[i % SETS];
                for (int k = 0; k < LABELS; k++) {
                    sink += symbols.intern(n[k], 0, n[k].length) + symbols.intern(v[k], 0, v[k].length);
                }
                sink += symbols.find(v[0], 0, v[0].length);
            }
        };
        assertThat(allocatedBytes(loop, WARMUP)).isLessThan(BOUND_BYTES);
        assertThat(symbols.count()).as("only hits").isEqualTo(count);
    }

    private interface Loop {
        void run(int iterations);
    }

    /** Bytes this thread allocated in {@value #MEASURED} iterations after {@code warmups} warm-up ones. */
    private static long allocatedBytes(Loop loop, int warmups) {
        loop.run(warmups); // buffers reach their steady size, the JIT compiles the loop
        long before = THREADS.getCurrentThreadAllocatedBytes();
        loop.run(MEASURED);
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
