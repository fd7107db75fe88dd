package io.sluice.promql.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.SampleIterator;
import org.junit.jupiter.api.Test;

class SeriesDescriptionTest {
    private static double[] values(String line) {
        return SeriesDescription.parse(line).values();
    }

    @Test
    void expandsIncreasingAndDecreasingSequences() {
        SeriesDescription sd = SeriesDescription.parse("http_requests{job=\"api\", instance=\"0\"} 0+10x3");
        assertThat(sd.labels()).isEqualTo(Labels.of("__name__", "http_requests", "job", "api", "instance", "0"));
        assertThat(sd.values()).containsExactly(0, 10, 20, 30);
        assertThat(values("m 1-1x3")).containsExactly(1, 0, -1, -2);
        assertThat(values("m -1-1x2")).containsExactly(-1, -2, -3);
        assertThat(values("m 5x2 7")).containsExactly(5, 5, 5, 7);
        assertThat(values("m 0.1+0.1x2")).containsExactly(0.1, 0.1 + 0.1, 0.1 + 0.1 + 0.1);
    }

    @Test
    void blanksAreStepsWithoutSamples() {
        SeriesDescription sd = SeriesDescription.parse("m _ 1 _x2 2");
        assertThat(sd.size()).isEqualTo(5);
        assertThat(sd.kinds()).containsExactly(SeriesDescription.OMITTED, SeriesDescription.FLOAT, SeriesDescription.OMITTED,
                SeriesDescription.OMITTED, SeriesDescription.FLOAT);
        assertThat(sd.values()[1]).isEqualTo(1);
        assertThat(sd.values()[4]).isEqualTo(2);
    }

    @Test
    void specialValues() {
        double[] v = values("m stale Inf -Inf NaN +5 -5 inf");
        assertThat(Double.doubleToRawLongBits(v[0])).isEqualTo(SampleIterator.STALE_NAN_BITS);
        assertThat(v[1]).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(v[2]).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(v[3]).isNaN();
        assertThat(v[4]).isEqualTo(5);
        assertThat(v[5]).isEqualTo(-5);
        assertThat(v[6]).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void numberSyntaxAsGoReadsIt() {
        assertThat(values("m 1e3 .5 1_000 010 09 2.5e-1")).containsExactly(1000, 0.5, 1000, 8, 9, 0.25);
        // no hexadecimal in series values: 0x2 is 0 repeated
        assertThat(values("m 0x2")).containsExactly(0, 0, 0);
    }

    @Test
    void quotedUtf8NamesAndEscapes() {
        SeriesDescription sd = SeriesDescription.parse("{\"some.metric\", \"läbel.x\"=\"v\\\"1\", b='c'} 1");
        assertThat(sd.labels()).isEqualTo(Labels.of("__name__", "some.metric", "läbel.x", "v\"1", "b", "c"));
        assertThat(SeriesDescription.parse("{} 3").labels()).isEqualTo(Labels.EMPTY);
        assertThat(SeriesDescription.parse("m{a=\"b\",} 3").labels()).isEqualTo(Labels.of("__name__", "m", "a", "b"));
    }

    @Test
    void histogramsKeepTheirSteps() {
        SeriesDescription sd = SeriesDescription.parse("h 1 {{schema:0 sum:1 count:2 buckets:[1 1]}}x2 {{count:1}}+{{count:2}}x1 _");
        assertThat(sd.size()).isEqualTo(7);
        assertThat(sd.hasHistogram()).isTrue();
        assertThat(sd.kinds()).containsExactly(SeriesDescription.FLOAT, SeriesDescription.HISTOGRAM, SeriesDescription.HISTOGRAM,
                SeriesDescription.HISTOGRAM, SeriesDescription.HISTOGRAM, SeriesDescription.HISTOGRAM, SeriesDescription.OMITTED);
    }

    @Test
    void badSyntaxIsAnError() {
        assertThatThrownBy(() -> SeriesDescription.parse("m 1+")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> SeriesDescription.parse("m 1+2")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> SeriesDescription.parse("m Infx3")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> SeriesDescription.parse("m foo")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> SeriesDescription.parse("m{a=b} 1")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> SeriesDescription.parse("m 1e")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> SeriesDescription.parse("m 1..2")).isInstanceOf(ScriptException.class);
    }
}
