#!/usr/bin/env bash
# Flame graphs (async-profiler HTML) for the JMH benchmarks whose names match a regex, one per
# benchmark and parameter combination:
#
#   benchmarks/flame.sh BENCH_REGEX [cpu|alloc|wall|itimer] [JMH options...]
#   benchmarks/flame.sh HeadAppendBenchmark                 # CPU, default iterations
#   benchmarks/flame.sh 'XorChunk.*encode' alloc -p shape=constant -wi 2 -i 3
#
# Output: benchmarks/results/flame/<date>-<regex>-<event>/<benchmark-params>/flame-<event>-forward.html
# (and -reverse.html), plus collapsed-<event>.csv for benchmarks/flame_svg.py (a static SVG to commit).
# Also writes the JMH JSON (-prof gc included) beside them.
# cpu uses perf events as root and falls back to ctimer otherwise; no hardware events here (no PMU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh
if [ $# -lt 1 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
regex="$1"; shift
event="cpu"
case "${1:-}" in
  cpu|alloc|wall|itimer) event="$1"; shift ;;
esac
build_benchmarks_jar

out="benchmarks/results/flame/$(date +%F)-$(safe_name "$regex")-$event"
mkdir -p "$out"
"$JAVA" "${JVM_FLAGS[@]}" -jar "$BENCH_JAR" "$regex" -prof gc \
  -prof "async:libPath=$ASYNC_PROFILER_LIB;output=flamegraph,collapsed;event=$event;dir=$out" \
  -rf json -rff "$out/results.json" "$@"
echo "flame graphs:"
find "$out" -name '*.html' | sort
