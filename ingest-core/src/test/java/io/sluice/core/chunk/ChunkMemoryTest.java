package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ChunkMemoryTest {
    private final MemoryAccounting accounting = new MemoryAccounting();

    @Test
    void blocksAreRoundedTo16BytesAndNeverOverlap() {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            SplittableRandom random = new SplittableRandom(99);
            List<Long> handles = new ArrayList<>();
            long requested = 0;
            for (int i = 0; i < 3_000; i++) {
                int size = random.nextInt(1, ChunkMemory.MAX_BLOCK_BYTES + 1);
                long handle = memory.allocate(size);
                assertThat(ChunkHandle.capacityBytes(handle)).isBetween(size, size + 15);
                assertThat(ChunkMemory.offset(handle) % ChunkMemory.BLOCK_GRANULE_BYTES).isZero();
                memory.page(handle).asSlice(ChunkMemory.offset(handle), ChunkHandle.capacityBytes(handle)).fill((byte) i);
                handles.add(handle);
                requested += ChunkHandle.capacityBytes(handle);
            }
            // Sorted by address, each block ends before the next begins, and still holds its own fill.
            List<Long> byAddress = new ArrayList<>(handles);
            byAddress.sort(Comparator.comparingLong(h -> (long) ChunkHandle.pageIndex(h) * ChunkMemory.PAGE_SIZE_BYTES + ChunkMemory.offset(h)));
            for (int i = 1; i < byAddress.size(); i++) {
                long previous = byAddress.get(i - 1);
                long next = byAddress.get(i);
                if (ChunkHandle.pageIndex(previous) == ChunkHandle.pageIndex(next)) {
                    assertThat(ChunkMemory.offset(previous) + ChunkHandle.capacityBytes(previous)).isLessThanOrEqualTo(ChunkMemory.offset(next));
                }
            }
            for (int i = 0; i < handles.size(); i++) {
                long handle = handles.get(i);
                MemorySegment page = memory.page(handle);
                assertThat(page.get(ValueLayout.JAVA_BYTE, ChunkMemory.offset(handle))).isEqualTo((byte) i);
                assertThat(page.get(ValueLayout.JAVA_BYTE, ChunkMemory.offset(handle) + ChunkHandle.capacityBytes(handle) - 1)).isEqualTo((byte) i);
            }
            assertThat(memory.usedBytes()).isEqualTo(requested);
            assertThat(memory.reservedBytes()).isEqualTo(accounting.bytes(MemoryTag.CHUNKS))
                    .isGreaterThanOrEqualTo(requested).isLessThan(requested + 2L * ChunkMemory.PAGE_SIZE_BYTES);
            assertThat(memory.reservedBytes() % ChunkMemory.PAGE_SIZE_BYTES).isZero();
        }
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).isZero();
    }

    @Test
    void freedBlocksServeTheirClassAgain() {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            long a = memory.allocate(100);
            long b = memory.allocate(100);
            long other = memory.allocate(200);
            memory.free(a);
            memory.free(b);
            assertThat(memory.usedBytes()).isEqualTo(ChunkHandle.capacityBytes(other));
            assertThat(memory.allocate(97)).as("last freed first").isEqualTo(b);
            assertThat(memory.allocate(112)).isEqualTo(a);
            long fresh = memory.allocate(100);
            assertThat(Set.of(a, b, other)).doesNotContain(fresh);
            long reserved = memory.reservedBytes();
            for (int i = 0; i < 10_000; i++) {
                memory.free(memory.allocate(100));
            }
            assertThat(memory.reservedBytes()).as("reuse reserves nothing").isEqualTo(reserved);
        }
    }

    @Test
    void aPageTailTooSmallForARequestGoesToItsFreeList() {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            int blocks = ChunkMemory.PAGE_SIZE_BYTES / 4000;
            for (int i = 0; i < blocks; i++) {
                assertThat(ChunkHandle.pageIndex(memory.allocate(4000))).isZero();
            }
            int tail = ChunkMemory.PAGE_SIZE_BYTES - blocks * 4000;
            assertThat(ChunkHandle.pageIndex(memory.allocate(4000))).isEqualTo(1);
            long tailBlock = memory.allocate(tail);
            assertThat(ChunkHandle.pageIndex(tailBlock)).isZero();
            assertThat(ChunkMemory.offset(tailBlock)).isEqualTo(blocks * 4000L);
            assertThat(memory.reservedBytes()).isEqualTo(2L * ChunkMemory.PAGE_SIZE_BYTES);
        }
    }

    @Test
    void copyMovesTheLeadingBytesAndKeepsTheSource() {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            long source = memory.allocate(64);
            MemorySegment page = memory.page(source);
            for (int i = 0; i < 64; i++) {
                page.set(ValueLayout.JAVA_BYTE, ChunkMemory.offset(source) + i, (byte) (i + 1));
            }
            long target = memory.copy(source, 40, 512);
            assertThat(ChunkHandle.capacityBytes(target)).isEqualTo(512);
            byte[] copied = memory.page(target).asSlice(ChunkMemory.offset(target), 40).toArray(ValueLayout.JAVA_BYTE);
            assertThat(copied).isEqualTo(page.asSlice(ChunkMemory.offset(source), 40).toArray(ValueLayout.JAVA_BYTE));
            assertThat(memory.usedBytes()).isEqualTo(64 + 512);
            assertThatThrownBy(() -> memory.copy(source, 65, 512)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> memory.copy(source, 40, 32)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void badRequestsAndDoubleFreesAreRefusedLoudly() {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            assertThatThrownBy(() -> memory.allocate(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> memory.allocate(ChunkMemory.MAX_BLOCK_BYTES + 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4097");
            memory.allocate(16);
            assertThatThrownBy(() -> memory.free(ChunkHandle.NONE)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> memory.free(ChunkHandle.of(5, 0, 16))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("5/0/16");
            long block = memory.allocate(64);
            memory.free(block);
            assertThatThrownBy(() -> memory.free(block)).isInstanceOf(IllegalStateException.class).hasMessageContaining("freed twice");
            assertThatThrownBy(() -> memory.free(ChunkHandle.of(0, 4096, 16))).as("never allocated")
                    .isInstanceOf(IllegalStateException.class);
            assertThat(memory.allocate(64)).as("the free list survived the refusals").isEqualTo(block);
        }
    }

    @Test
    void anotherThreadAllocatingTripsTheOwnerAssertion() throws Exception {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            memory.allocate(32);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread intruder = new Thread(() -> {
                try {
                    memory.allocate(32);
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            intruder.start();
            intruder.join();
            assertThat(thrown.get()).as("run with -ea (surefire's default)").isInstanceOf(AssertionError.class)
                    .hasMessageContaining("owned by");
        }
    }

    @Test
    void readersOnOtherThreadsResolveHandles() throws Exception {
        try (ChunkMemory memory = new ChunkMemory(accounting)) {
            List<Long> handles = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                long handle = memory.allocate(ChunkMemory.MAX_BLOCK_BYTES);
                memory.page(handle).set(ValueLayout.JAVA_LONG, ChunkMemory.offset(handle), handle);
                handles.add(handle);
            }
            Set<Integer> pagesSeen = new HashSet<>();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    for (long handle : handles) {
                        assertThat(memory.page(handle).get(ValueLayout.JAVA_LONG, ChunkMemory.offset(handle))).isEqualTo(handle);
                        pagesSeen.add(ChunkHandle.pageIndex(handle));
                    }
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            reader.start();
            reader.join();
            assertThat(thrown.get()).isNull();
            assertThat(pagesSeen).hasSize(4);
        }
    }

    @Test
    void closeReturnsEveryByteAndRefusesFurtherUse() {
        ChunkMemory memory = new ChunkMemory(accounting);
        List<Long> handles = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            handles.add(memory.allocate(16 * (1 + i % 256)));
        }
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).isEqualTo(memory.reservedBytes()).isPositive();
        handles.forEach(memory::free);
        assertThat(memory.usedBytes()).isZero();
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).as("pages stay reserved until close").isPositive();
        memory.close();
        memory.close();
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).isZero();
        assertThat(accounting.totalBytes()).isZero();
        assertThat(memory.reservedBytes()).isZero();
        assertThat(memory.isClosed()).isTrue();
        assertThatThrownBy(() -> memory.allocate(16)).isInstanceOf(IllegalStateException.class);
    }
}
