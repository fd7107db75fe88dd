#!/usr/bin/env bash
# Regression check: a quick run of a subset of the suite (short iterations, -prof gc) compared with
# the committed baseline (benchmarks/baseline.json); prints every figure and flags those worse than
# the threshold (default 15 %). Informational: speed on shared machines moves by 2-3x.
#
#   benchmarks/check.sh                    # exit 3 on regressions
#   benchmarks/check.sh --ci               # always exit 0 (CI: print only)
#   benchmarks/check.sh --threshold 25
#   benchmarks/check.sh --record           # run the subset and make it the new baseline
# CHECK_REGEX and CHECK_JMH override the subset and the JMH options.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh
regex="${CHECK_REGEX:-chunks\.|head\.(HeadAppend|RunAppend)|labels\.(HashBenchmark|LabelsBuilder)|decode\.|wal\.(WalRead|SamplesDecode)|query\.}"
read -r -a jmh <<< "${CHECK_JMH:--f 1 -wi 2 -w 1 -i 3 -r 1 -p selector=one,tenth -p range=all -p format=sluice,prometheus-remote-write,influx}"
record=false; ci=false; args=()
for a in "$@"; do
  if [ "$a" = "--record" ]; then record=true; else args+=("$a"); fi
  if [ "$a" = "--ci" ]; then ci=true; fi
done
build_benchmarks_jar
mkdir -p benchmarks/results
current="benchmarks/results/check-$(date +%F-%H%M%S).json"
"$JAVA" "${JVM_FLAGS[@]}" -jar "$BENCH_JAR" "$regex" -prof gc -rf json -rff "$current" "${jmh[@]}" > "$current.log" 2>&1 \
  || { echo "the benchmark run failed; see $current.log" >&2; tail -20 "$current.log" >&2; if $ci; then exit 0; else exit 2; fi; }
if $record; then
  cp "$current" benchmarks/baseline.json
  echo "baseline recorded: benchmarks/baseline.json ($(uptime | sed 's/.*load average/load average/'))"
  exit 0
fi
"$JAVA" -cp "$BENCH_JAR" io.sluice.bench.check.RegressionCheck benchmarks/baseline.json "$current" "${args[@]}"
