package io.sluice.core.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SymbolTableTest {
    private static final long SEED = 0x5E7BL;

    @Test
    void internsToDenseIdsAndReadsThemBack() {
        SymbolTable table = new SymbolTable();
        assertThat(intern(table, "job")).isZero();
        assertThat(intern(table, "node")).isEqualTo(1);
        assertThat(intern(table, "job")).isZero();
        assertThat(intern(table, "")).isEqualTo(2);
        assertThat(table.count()).isEqualTo(3);
        assertThat(table.find("node")).isEqualTo(1);
        assertThat(table.find("nodes")).isEqualTo(-1);
        assertThat(table.string(1)).isEqualTo("node");
        assertThat(table.length(1)).isEqualTo(4);
        assertThat(table.bytesEqual(0, "job".getBytes(StandardCharsets.UTF_8), 0, 3)).isTrue();
        assertThat(table.bytesEqual(0, "jo".getBytes(StandardCharsets.UTF_8), 0, 2)).isFalse();
        byte[] dst = new byte[8];
        assertThat(table.copy(1, dst, 2)).isEqualTo(4);
        assertThat(new String(dst, 2, 4, StandardCharsets.UTF_8)).isEqualTo("node");
        assertThat(table.symbolBytes()).isEqualTo(7);
    }

    @Test
    void comparesByUnsignedBytes() {
        SymbolTable table = new SymbolTable();
        int halfwidth = intern(table, "\uFF61");
        int emoji = intern(table, "\uD83D\uDE00");
        int a = intern(table, "a");
        int ab = intern(table, "ab");
        assertThat(table.compare(halfwidth, emoji)).isNegative();
        assertThat(table.compare(a, ab)).isNegative();
        assertThat(table.compare(ab, a)).isPositive();
        assertThat(table.compare(a, a)).isZero();
    }

    @Test
    void agreesWithAHashMapAcrossGrowthAndPages() {
        Random random = new Random(SEED);
        SymbolTable table = new SymbolTable();
        Map<String, Integer> reference = new HashMap<>();
        List<String> symbols = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            String s = i % 400 == 0 ? "x".repeat(30_000 + random.nextInt(SymbolTable.MAX_SYMBOL_BYTES - 30_000))
                    : Long.toString(random.nextLong(20_000), 36);
            int id = intern(table, s);
            Integer expected = reference.putIfAbsent(s, reference.size());
            assertThat(id).as("seed %d symbol %d", SEED, i).isEqualTo(expected == null ? reference.size() - 1 : expected);
            if (expected == null) {
                symbols.add(s);
            }
        }
        assertThat(table.symbolBytes()).as("several 1 MiB pages").isGreaterThan(3L * SymbolTable.PAGE_BYTES);
        for (int id = 0; id < symbols.size(); id++) {
            assertThat(table.string(id)).isEqualTo(symbols.get(id));
            assertThat(table.find(symbols.get(id))).isEqualTo(id);
        }
        assertThat(table.heapBytes()).isGreaterThan(table.symbolBytes());
    }

    @Test
    void rejectsIdsNeverPublishedAndOversizedSymbols() {
        SymbolTable table = new SymbolTable();
        intern(table, "a");
        assertThatThrownBy(() -> table.string(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not published");
        assertThatThrownBy(() -> table.length(-1)).isInstanceOf(IllegalArgumentException.class);
        byte[] big = new byte[SymbolTable.MAX_SYMBOL_BYTES + 1];
        assertThatThrownBy(() -> table.intern(big, 0, big.length)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * One writer interns a million symbols while readers pick ids below the published count: every
     * such id resolves to its bytes, and find() sees every id whose successor was published.
     */
    @Test
    void readersSeeEveryPublishedSymbolWhileTheWriterInterns() throws InterruptedException {
        int symbols = 1_000_000;
        SymbolTable table = new SymbolTable();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong checks = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            long seed = SEED + r;
            readers.add(Thread.ofPlatform().name("reader-" + r).start(() -> {
                try {
                    readUntilDone(table, done, new SplittableRandom(seed), checks, seed);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        byte[] buffer = new byte[16];
        for (int i = 0; i < symbols; i++) {
            int len = symbolBytes(i, buffer);
            if (table.intern(buffer, 0, len) != i) {
                failure.compareAndSet(null, new AssertionError("writer got a wrong id for " + i));
                break;
            }
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(table.count()).isEqualTo(symbols);
        assertThat(checks.get()).as("readers did check something").isPositive();
    }

    private static void readUntilDone(SymbolTable table, AtomicBoolean done, SplittableRandom random,
            AtomicLong checks, long seed) {
        byte[] expected = new byte[16];
        byte[] copy = new byte[16];
        boolean last = false;
        while (!last) {
            last = done.get(); // one more round after the writer finished
            int count = table.count();
            if (count == 0) {
                continue;
            }
            for (int k = 0; k < 64; k++) {
                int id = k == 0 ? count - 1 : random.nextInt(count);
                int len = symbolBytes(id, expected);
                int copied = table.copy(id, copy, 0);
                if (copied != len || !java.util.Arrays.equals(copy, 0, len, expected, 0, len)) {
                    throw new AssertionError("seed " + seed + ": id " + id + " of " + count + " has wrong bytes");
                }
                int found = table.find(expected, 0, len);
                if (found != id && !(found == -1 && id >= count - 1)) {
                    throw new AssertionError("seed " + seed + ": find of id " + id + " of " + count + " gave " + found);
                }
            }
            checks.addAndGet(64);
        }
    }

    /** Symbol i: "s" and i in decimal, written without allocating. */
    private static int symbolBytes(int i, byte[] out) {
        String digits = Integer.toString(i); // the test may allocate; the table may not
        out[0] = 's';
        for (int k = 0; k < digits.length(); k++) {
            out[k + 1] = (byte) digits.charAt(k);
        }
        return digits.length() + 1;
    }

    private static int intern(SymbolTable table, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return table.intern(b, 0, b.length);
    }
}
