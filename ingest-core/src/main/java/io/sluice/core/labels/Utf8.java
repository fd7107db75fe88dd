package io.sluice.core.labels;

/**
 * Validates UTF-8 in place, without decoding to chars and without allocating. Well-formed means
 * exactly what {@link java.nio.charset.StandardCharsets#UTF_8} with {@code REPORT} accepts (and what
 * Go's {@code utf8.Valid} accepts): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
 * U+10FFFF, no truncated sequence. Utf8Test checks that equivalence on random bytes.
 */
public final class Utf8 {
    private Utf8() {
    }

    /** The index of the first byte of the first ill-formed sequence in {@code b[off, off + len)}, or -1. */
    public static int firstInvalid(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        while (i < end) {
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            int size = sequenceLength(b, i, end);
            if (size < 0) {
                return i;
            }
            i += size;
        }
        return -1;
    }

    /** Length of the multi-byte sequence starting at {@code i} (lead byte >= 0x80), or -1 if ill-formed. */
    private static int sequenceLength(byte[] b, int i, int end) {
        int lead = b[i] & 0xFF;
        int size;
        int min2 = 0x80; // range of the second byte, narrowed for E0, ED, F0, F4 (Unicode Table 3-7)
        int max2 = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            size = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            size = 3;
            if (lead == 0xE0) {
                min2 = 0xA0;
            } else if (lead == 0xED) {
                max2 = 0x9F;
            }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            size = 4;
            if (lead == 0xF0) {
                min2 = 0x90;
            } else if (lead == 0xF4) {
                max2 = 0x8F;
            }
        } else {
            return -1;
        }
        if (i + size > end) {
            return -1;
        }
        int second = b[i + 1] & 0xFF;
        if (second < min2 || second > max2) {
            return -1;
        }
        for (int k = 2; k < size; k++) {
            if ((b[i + k] & 0xC0) != 0x80) {
                return -1;
            }
        }
        return size;
    }
}
