package io.sluice.server.format.remotewrite;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;

/** Compresses a request into one snappy block in a reusable buffer (grown to the largest). Not thread-safe. */
final class SnappyWriter {
    private final SnappyJavaCompressor snappy = new SnappyJavaCompressor();
    private byte[] compressed = new byte[0];
    private int length;

    /** Compresses {@code src[0, len)}; returns the compressed length, the bytes being {@link #buffer()}. */
    int compress(byte[] src, int len) {
        int maxLength = snappy.maxCompressedLength(len);
        if (compressed.length < maxLength) {
            compressed = new byte[maxLength];
        }
        length = snappy.compress(src, 0, len, compressed, 0, compressed.length);
        return length;
    }

    byte[] buffer() {
        return compressed;
    }

    int length() {
        return length;
    }

    void clear() {
        length = 0;
    }
}
