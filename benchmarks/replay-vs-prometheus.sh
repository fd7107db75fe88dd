#!/usr/bin/env bash
# The replay experiment, Sluice next to the Prometheus anchor harness, back to back on one machine
# (BENCHMARKS.md "Replay"). For each N: Prometheus ingest + WAL-only replay (-drop-mmap), then
# `sluice bench replay` (write + WAL-only restart in a fresh JVM), one more WAL-only restart and a
# restart from the checkpoint (Prometheus: also its normal restart with chunks_head). Data directories go
# under $WORK (default /tmp) and are deleted after each N.
#   benchmarks/replay-vs-prometheus.sh [N ...]        default: 10000000 100000000
# Needs: tools/target/sluice.jar (./mvnw -pl tools -am package -DskipTests), GNU time,
# and Go for the Prometheus harness (benchmarks/anchors/prometheus), which the script builds when its
# binary is missing or older than its sources (or PROMHARNESS=path to use another binary).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
jar="$root/tools/target/sluice.jar"
anchor="$root/benchmarks/anchors/prometheus"
prom="${PROMHARNESS:-$anchor/promharness}"
stale() { [ ! -x "$prom" ] || [ -n "$(find "$anchor" -maxdepth 1 -name '*.go' -newer "$prom")" ] \
  || [ "$anchor/go.mod" -nt "$prom" ] || [ "$anchor/go.sum" -nt "$prom" ]; }
if [ -z "${PROMHARNESS:-}" ] && stale; then
  echo "building $prom (Prometheus module from the Go module proxy; a minute or two the first time)"
  (cd "$anchor" && go build -o promharness .) || { echo "could not build $prom" >&2; exit 1; }
fi
work="${WORK:-/tmp}"
sluice() { "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" "$@"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
[ $# -gt 0 ] || set -- 10000000 100000000
aot="$work/sluice-replay.aot"   # JDK 25 AOT cache of the restarted process: trained at the first N, reused after
rm -f "$aot"
for n in "$@"; do
  echo "=== N=$n $(date -u +%FT%TZ) load: $(load)"
  rm -rf "$work/prom-$n"
  /usr/bin/time -v "$prom" -mode=ingest -dir "$work/prom-$n" -samples "$n" 2>&1 \
    | grep -E "ingest_done|wal_bytes_per_sample|Elapsed|Maximum resident|User time|System time"
  echo "--- prometheus replay (-drop-mmap) load: $(load)"
  /usr/bin/time -v "$prom" -mode=replay -dir "$work/prom-$n" -drop-mmap 2>&1 \
    | grep -E "replay|Elapsed|Maximum resident|User time|System time"
  echo "--- prometheus restart with chunks_head load: $(load)"
  /usr/bin/time -v "$prom" -mode=replay -dir "$work/prom-$n" 2>&1 \
    | grep -E "replay|Elapsed|Maximum resident|User time|System time"
  rm -rf "$work/prom-$n" "$work/sluice-$n"
  echo "--- sluice bench replay load: $(load)"
  sluice bench replay --samples "$n" --series 10000 --dir "$work/sluice-$n" 2>&1 | grep -v "^write: "
  echo "--- sluice replay again load: $(load)"
  sluice bench replay --replay-only --samples "$n" --dir "$work/sluice-$n" 2>&1 | grep -E "^replay|^restart process"
  if [ ! -f "$aot" ]; then
    echo "--- sluice AOT training restart (writes $aot; not a timing) load: $(load)"
    sluice bench replay --replay-only --samples "$n" --dir "$work/sluice-$n" --aot-cache "$aot" 2>&1 | grep -E "^restart process"
  fi
  echo "--- sluice replay again, from the AOT cache load: $(load)"
  sluice bench replay --replay-only --samples "$n" --dir "$work/sluice-$n" --aot-cache "$aot" 2>&1 | grep -E "^replay|^restart process|^memory"
  echo "--- sluice restart from its checkpoint load: $(load)"
  sluice bench replay --replay-only --from checkpoint --samples "$n" --dir "$work/sluice-$n" 2>&1 | grep -E "^replay|^restart process"
  rm -rf "$work/sluice-$n"
done
echo "=== done $(date -u +%FT%TZ) load: $(load)"
