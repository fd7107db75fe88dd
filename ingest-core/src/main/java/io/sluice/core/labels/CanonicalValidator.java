package io.sluice.core.labels;

/**
 * Checks that bytes from outside are exactly the canonical encoding ({@link CanonicalLabels}) of a
 * label set within the {@link LabelLimits}: minimal length prefixes inside the bounds, non-empty
 * UTF-8 names and values, names strictly ascending. One reusable instance per {@link LabelsBuilder};
 * allocates nothing. Not thread-safe.
 */
final class CanonicalValidator {
    private final LabelLimits limits;
    private int errorOffset = -1; // from the start of the input
    private int count;

    CanonicalValidator(LabelLimits limits) {
        this.limits = limits;
    }

    /** Where the last failure was, from the start of the input: a label's or an invalid byte's offset. */
    int errorOffset() {
        return errorOffset;
    }

    /** Labels in the last input that validated. */
    int count() {
        return count;
    }

    LabelsStatus validate(byte[] b, int off, int len) {
        count = 0;
        errorOffset = -1;
        if (len > limits.maxCanonicalBytes()) {
            return fail(LabelsStatus.TOO_LONG, limits.maxCanonicalBytes());
        }
        int end = off + len;
        int pos = off;
        int prevNameOff = -1;
        int prevNameLen = 0;
        boolean hasMetricName = false;
        while (pos < end) {
            int labelStart = pos;
            if (count == limits.maxLabels()) {
                return fail(LabelsStatus.TOO_MANY_LABELS, labelStart - off);
            }
            int nameLen = CanonicalLabels.getUvarint(b, pos, end);
            LabelsStatus s = checkLength(nameLen, end - pos, limits.maxNameBytes(), LabelsStatus.EMPTY_NAME,
                    LabelsStatus.NAME_TOO_LONG);
            if (s != LabelsStatus.OK) {
                return fail(s, labelStart - off);
            }
            int nameOff = pos + CanonicalLabels.uvarintLength(nameLen);
            pos = nameOff + nameLen;
            int valueLen = CanonicalLabels.getUvarint(b, pos, end);
            s = checkLength(valueLen, end - pos, limits.maxValueBytes(), LabelsStatus.EMPTY_VALUE,
                    LabelsStatus.VALUE_TOO_LONG);
            if (s != LabelsStatus.OK) {
                return fail(s, pos - off);
            }
            int valueOff = pos + CanonicalLabels.uvarintLength(valueLen);
            pos = valueOff + valueLen;
            s = checkUtf8(b, nameOff, nameLen, off);
            if (s == LabelsStatus.OK) {
                s = checkUtf8(b, valueOff, valueLen, off);
            }
            if (s != LabelsStatus.OK) {
                return s;
            }
            if (prevNameOff >= 0) {
                int c = CanonicalLabels.compareBytes(b, prevNameOff, prevNameLen, b, nameOff, nameLen);
                if (c >= 0) {
                    return fail(c == 0 ? LabelsStatus.DUPLICATE_NAME : LabelsStatus.NOT_SORTED, labelStart - off);
                }
            }
            hasMetricName |= CanonicalLabels.isMetricName(b, nameOff, nameLen);
            prevNameOff = nameOff;
            prevNameLen = nameLen;
            count++;
        }
        if (limits.requireMetricName() && !hasMetricName) {
            return fail(LabelsStatus.NO_METRIC_NAME, len);
        }
        return LabelsStatus.OK;
    }

    /**
     * Checks a label's lengths and UTF-8 against the limits: what {@link LabelsBuilder#add} checks
     * for each label with a non-empty value.
     */
    static LabelsStatus checkLabel(LabelLimits limits, byte[] n, int nOff, int nLen, byte[] v, int vOff, int vLen) {
        if (nLen == 0) {
            return LabelsStatus.EMPTY_NAME;
        }
        if (nLen > limits.maxNameBytes()) {
            return LabelsStatus.NAME_TOO_LONG;
        }
        if (vLen > limits.maxValueBytes()) {
            return LabelsStatus.VALUE_TOO_LONG;
        }
        if (Utf8.firstInvalid(n, nOff, nLen) >= 0 || Utf8.firstInvalid(v, vOff, vLen) >= 0) {
            return LabelsStatus.INVALID_UTF8;
        }
        return LabelsStatus.OK;
    }

    /**
     * A decoded length prefix: -1 (malformed), 0 ({@code ifEmpty}), above the limit
     * ({@code ifTooLong}, checked before the bounds so an oversized label is named as such) or
     * running past the end (malformed).
     */
    private static LabelsStatus checkLength(int length, int remaining, int max, LabelsStatus ifEmpty,
            LabelsStatus ifTooLong) {
        if (length < 0) {
            return LabelsStatus.MALFORMED;
        }
        if (length == 0) {
            return ifEmpty;
        }
        if (length > max) {
            return ifTooLong;
        }
        return length > remaining - CanonicalLabels.uvarintLength(length) ? LabelsStatus.MALFORMED : LabelsStatus.OK;
    }

    private LabelsStatus checkUtf8(byte[] b, int from, int len, int base) {
        int bad = Utf8.firstInvalid(b, from, len);
        return bad < 0 ? LabelsStatus.OK : fail(LabelsStatus.INVALID_UTF8, bad - base);
    }

    private LabelsStatus fail(LabelsStatus s, int offset) {
        errorOffset = offset;
        return s;
    }
}
