package io.sluice.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryAccountingTest {
    @Test
    void countsEachTagSeparatelyAndReturnsToZero() {
        MemoryAccounting accounting = new MemoryAccounting();
        accounting.allocated(MemoryTag.CHUNKS, 4096);
        accounting.allocated(MemoryTag.SYMBOLS, 100);
        accounting.allocated(MemoryTag.CHUNKS, 1024);
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).isEqualTo(5120);
        assertThat(accounting.bytes(MemoryTag.SYMBOLS)).isEqualTo(100);
        assertThat(accounting.bytes(MemoryTag.INDEX)).isZero();
        assertThat(accounting.totalBytes()).isEqualTo(5220);

        accounting.released(MemoryTag.CHUNKS, 5120);
        accounting.released(MemoryTag.SYMBOLS, 100);
        assertThat(accounting.totalBytes()).isZero();
        assertThat(accounting.toString()).contains("CHUNKS=0", "QUEUES=0");
    }

    @Test
    void releasingMoreThanAllocatedIsLoud() {
        MemoryAccounting accounting = new MemoryAccounting();
        accounting.allocated(MemoryTag.SERIES, 10);
        assertThatThrownBy(() -> accounting.released(MemoryTag.SERIES, 11))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("SERIES");
        assertThatThrownBy(() -> accounting.allocated(MemoryTag.SERIES, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
