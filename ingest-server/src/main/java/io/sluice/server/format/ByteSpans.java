package io.sluice.server.format;

import java.util.Arrays;

/**
 * A reusable, growable list of byte ranges, each in one of two arrays the owner holds (the record
 * value, or a scratch buffer that unescaped text was copied to): the text decoders' way of keeping a
 * line's or an object's tokens until all of it has been checked, without an object per token.
 * Grows by doubling and never shrinks. Not thread-safe: owned by one decoder.
 */
public final class ByteSpans {
    /** The span lies in the input (the record value). */
    public static final int INPUT = 0;
    /** The span lies in the owner's scratch buffer. */
    public static final int SCRATCH = 1;

    private int[] source;
    private int[] offset;
    private int[] length;
    private int count;

    public ByteSpans(int initialCapacity) {
        source = new int[initialCapacity];
        offset = new int[initialCapacity];
        length = new int[initialCapacity];
    }

    public void clear() {
        count = 0;
    }

    public int count() {
        return count;
    }

    /** Appends a span; returns its index. */
    public int add(int spanSource, int spanOffset, int spanLength) {
        if (count == source.length) {
            int capacity = Math.max(4, 2 * count);
            source = Arrays.copyOf(source, capacity);
            offset = Arrays.copyOf(offset, capacity);
            length = Arrays.copyOf(length, capacity);
        }
        source[count] = spanSource;
        offset[count] = spanOffset;
        length[count] = spanLength;
        return count++;
    }

    /** The array span {@code i} lies in: {@code input} or {@code scratch} as its source says. */
    public byte[] buffer(int i, byte[] input, byte[] scratch) {
        return source[i] == INPUT ? input : scratch;
    }

    public int offset(int i) {
        return offset[i];
    }

    public int length(int i) {
        return length[i];
    }

    /** Whether spans {@code i} and {@code j} hold the same bytes. */
    public boolean sameBytes(int i, int j, byte[] input, byte[] scratch) {
        return length[i] == length[j] && Arrays.equals(buffer(i, input, scratch), offset[i], offset[i] + length[i],
                buffer(j, input, scratch), offset[j], offset[j] + length[j]);
    }

    /** Compares the bytes of spans {@code i} and {@code j} as unsigned, lexicographically. */
    public int compare(int i, int j, byte[] input, byte[] scratch) {
        return Arrays.compareUnsigned(buffer(i, input, scratch), offset[i], offset[i] + length[i],
                buffer(j, input, scratch), offset[j], offset[j] + length[j]);
    }

    /** Whether span {@code i} holds exactly {@code expected}. */
    public boolean equalsBytes(int i, byte[] input, byte[] scratch, byte[] expected) {
        return Arrays.equals(buffer(i, input, scratch), offset[i], offset[i] + length[i], expected, 0, expected.length);
    }
}
