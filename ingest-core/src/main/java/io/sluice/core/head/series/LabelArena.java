package io.sluice.core.head.series;

import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Off-heap storage for the canonical label bytes of a shard's series: append-only 1 MiB pages,
 * bump-allocated. A reference is {@code page << 32 | offset}. Written by the shard thread only;
 * readers on other threads resolve references through the page array, which is published after
 * the page is filled (a reader only holds references it obtained through a published series).
 *
 * <p>Label sets of idle series that are dropped are not reclaimed yet: the arena only grows
 * (about the label text of every series the shard ever held).
 */
public final class LabelArena implements AutoCloseable {
    static final int PAGE_BYTES = 1 << 20;
    /** Largest canonical label set a series may have; bigger ones are rejected before they get here. */
    public static final int MAX_LABELS_BYTES = 64 * 1024;

    private final Arena arena = Arena.ofShared();
    private final MemoryAccounting accounting;
    private volatile MemorySegment[] pages = new MemorySegment[0];
    private int pageUsedBytes = PAGE_BYTES; // shard thread only; "full" so the first add opens a page

    LabelArena(MemoryAccounting accounting) {
        this.accounting = accounting;
    }

    long add(byte[] labels, int offset, int length) {
        if (length > MAX_LABELS_BYTES) {
            throw new IllegalArgumentException("label set of " + length + " bytes exceeds " + MAX_LABELS_BYTES);
        }
        if (pageUsedBytes + length > PAGE_BYTES) {
            MemorySegment page = arena.allocate(PAGE_BYTES, 8);
            accounting.allocated(MemoryTag.SERIES, PAGE_BYTES);
            MemorySegment[] grown = Arrays.copyOf(pages, pages.length + 1);
            grown[grown.length - 1] = page;
            pages = grown;
            pageUsedBytes = 0;
        }
        int pageIndex = pages.length - 1;
        MemorySegment.copy(labels, offset, pages[pageIndex], ValueLayout.JAVA_BYTE, pageUsedBytes, length);
        long ref = ((long) pageIndex << 32) | pageUsedBytes;
        pageUsedBytes += length;
        return ref;
    }

    MemorySegment page(long ref) {
        return pages[(int) (ref >>> 32)];
    }

    static long offset(long ref) {
        return ref & 0xFFFF_FFFFL;
    }

    long usedBytes() {
        return pages.length == 0 ? 0 : (long) (pages.length - 1) * PAGE_BYTES + pageUsedBytes;
    }

    long reservedBytes() {
        return (long) pages.length * PAGE_BYTES;
    }

    @Override
    public void close() {
        accounting.released(MemoryTag.SERIES, reservedBytes());
        pages = new MemorySegment[0];
        arena.close();
    }
}
