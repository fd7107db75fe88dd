package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerting rules the README gives operators (docs/alerts/sluice.rules.yml) are valid for the real
 * {@code promtool}, and fire as documented on series shaped like what every instance of a group exports:
 * once per group (not once per instance) for stalled partitions, not for the unassigned blip of a
 * rebalance, once per lagging partition.
 */
class AlertRulesTest {
    private static final Path RULES = Path.of("..", "docs", "alerts", "sluice.rules.yml").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void promtoolChecksTheRules() {
        assertThat(ReferencePrometheus.promtool(List.of("check", "rules", RULES.toString()))).contains("SUCCESS: 4 rules found");
    }

    @Test
    void theRulesFireAsDocumented() throws Exception {
        Path tests = dir.resolve("sluice.rules.test.yml");
        Files.writeString(tests, """
                rule_files:
                  - %s
                evaluation_interval: 15s
                tests:
                  - interval: 15s
                    input_series:
                      # two instances export the same group-wide values; a third partition never moves
                      - series: 'sluice_group_unowned_partitions{group="g",reason="stalled",instance="a"}'
                        values: '0 0 2x40'
                      - series: 'sluice_group_unowned_partitions{group="g",reason="stalled",instance="b"}'
                        values: '0 0 2x40'
                      - series: 'sluice_group_unowned_partitions{group="g",reason="unassigned",instance="a"}'
                        values: '0 0 0 6 0x40'
                      - series: 'sluice_group_lag{group="g",topic="m",partition="0",instance="a"}'
                        values: '0+50000x40'
                      - series: 'sluice_group_lag{group="g",topic="m",partition="0",instance="b"}'
                        values: '0+50000x40'
                      - series: 'sluice_group_lag{group="g",topic="m",partition="1",instance="a"}'
                        values: '0x40'
                      - series: 'sluice_group_lag_check_failures_total{group="g",instance="a"}'
                        values: '0x40'
                    alert_rule_test:
                      - eval_time: 30s
                        alertname: SluicePartitionsUnowned
                        exp_alerts: []
                      - eval_time: 90s
                        alertname: SluicePartitionsUnowned
                        exp_alerts:
                          - exp_labels: {severity: warning, group: g, reason: stalled}
                            exp_annotations:
                              summary: "2 partition(s) of group g consumed by nobody (stalled)"
                              description: "stalled: a member holds them but commits nothing; unassigned: no member holds them. See sluice_group_lag."
                      - eval_time: 5m
                        alertname: SluiceGroupLagHigh
                        exp_alerts: []
                      - eval_time: 8m
                        alertname: SluiceGroupLagHigh
                        exp_alerts:
                          - exp_labels: {severity: warning, group: g, topic: m, partition: "0"}
                            exp_annotations:
                              summary: "m/0 of group g is 1.6e+06 records behind"
                      - eval_time: 8m
                        alertname: SluiceGroupLagUnknown
                        exp_alerts: []
                """.formatted(RULES));
        assertThat(ReferencePrometheus.promtool(List.of("test", "rules", tests.toString()))).contains("SUCCESS");
    }
}
