package io.sluice.core.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CanonicalLabelsEncodeTest {
    @Test
    void sortsByUtf8NameBytesDropsEmptyValuesAndPrefixesLengths() {
        byte[] encoded = CanonicalLabels.encode("job", "node", "__name__", "up", "empty", "", "é", "x", "z", "1");
        byte[] expected = concat(
                entry("__name__", "up"), entry("job", "node"), entry("z", "1"), entry("é", "x"));
        assertThat(encoded).isEqualTo(expected);
    }

    @Test
    void lengthsOf128BytesAndMoreTakeTwoVarintBytes() {
        String value = "v".repeat(200);
        byte[] encoded = CanonicalLabels.encode("a", value);
        assertThat(encoded).hasSize(1 + 1 + 2 + 200);
        assertThat(encoded[2] & 0xFF).isEqualTo(0x80 | (200 & 0x7F));
        assertThat(encoded[3]).isEqualTo((byte) 1);
    }

    @Test
    void rejectsDuplicatesAndOddArguments() {
        assertThatThrownBy(() -> CanonicalLabels.encode("a", "1", "a", "2")).hasMessageContaining("duplicate label name in a,1,a,2");
        assertThatThrownBy(() -> CanonicalLabels.encode("a")).isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] entry(String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        return concat(new byte[] {(byte) n.length}, n, new byte[] {(byte) v.length}, v);
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) {
            length += p.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
