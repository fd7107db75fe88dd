#!/usr/bin/env bash
# The end-to-end load benchmark (io.sluice.bench.e2e.E2eBench): pre-fill a topic, drain it, then a
# sustained-rate run; report, JSON and lag CSV in benchmarks/results/e2e/.
#
#   benchmarks/e2e.sh --preset max-rate                  # (a) 100k series, max rate, then 1 M samples/s
#   benchmarks/e2e.sh --preset percona                   # (b) 1.7 M series at 380k samples/s
#   benchmarks/e2e.sh --preset churn                     # (c) 1 M new series per 10 minutes
#   benchmarks/e2e.sh --preset churn --scale 0.1 --seconds 60   # scaled down: a quick run
#   benchmarks/e2e.sh --preset max-rate --bootstrap-servers host:9092   # an external broker
# Other flags: --series --prefill-samples --rate --seconds --churn-per-second --partitions --shards
# --consumer-threads --dir --out. E2E_HEAP sets the heap (default 8g).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh
build_benchmarks_jar
heap="${E2E_HEAP:-8g}"
exec "$JAVA" "${JVM_FLAGS[@]}" -Xms"$heap" -Xmx"$heap" -cp "$BENCH_JAR" io.sluice.bench.e2e.E2eBench "$@"
