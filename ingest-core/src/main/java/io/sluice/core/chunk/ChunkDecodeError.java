package io.sluice.core.chunk;

/** Why a {@link XorIterator} stopped before the promised number of samples. */
public enum ChunkDecodeError {
    /** No error (yet). */
    NONE,
    /** The count promised more samples than the bytes hold. */
    TRUNCATED,
    /** A varint of more than 10 bytes, or one overflowing 64 bits. */
    VARINT_OVERFLOW,
    /** A value window whose leading zeros plus significant bits exceed 64. */
    BAD_VALUE_WINDOW
}
