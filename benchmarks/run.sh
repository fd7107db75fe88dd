#!/usr/bin/env bash
# Runs the JMH suite, or the benchmarks whose names match a regex, with -prof gc, and writes
# JSON results to benchmarks/results/<date>-<name>.json.
#
#   benchmarks/run.sh                 # everything
#   benchmarks/run.sh 'wal\.'         # one area (package names: wal, chunks, labels, head, query, decode)
#   benchmarks/run.sh Xor -p shape=constant   # extra JMH arguments after the regex
#   benchmarks/run.sh 'query\.' -p selector=one -f 1 -wi 2 -i 3   # a quick subset
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh
build_benchmarks_jar

regex="${1:-.}"; shift || true
mkdir -p benchmarks/results
name="$(safe_name "$regex")"
out="benchmarks/results/$(date +%F)-${name:-all}.json"
"$JAVA" "${JVM_FLAGS[@]}" -jar "$BENCH_JAR" "$regex" -prof gc -rf json -rff "$out" "$@"
echo "results: $out"
