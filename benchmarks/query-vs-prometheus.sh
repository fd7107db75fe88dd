#!/usr/bin/env bash
# PromQL queries on Sluice next to Prometheus, on the same data, in one run (BENCHMARKS.md "Queries: PromQL vs
# Prometheus"). One generator (`sluice bench query-data`) writes N series x 2 h at 15 s into a Sluice data
# directory and the same samples as OpenMetrics text; `promtool tsdb create-blocks-from openmetrics` makes the
# Prometheus block of it. Then `prometheus` and `sluice serve` (beside a `sluice broker`, which it needs to
# start) serve them on 127.0.0.1, and benchmarks/query_vs_prometheus.py checks that both answer every query
# alike and times them, alternating (wall, server CPU from /proc, VmHWM). Last, async-profiler records a CPU
# flame graph of Sluice answering the query it is slowest on next to Prometheus (the lowest speed-up).
#
#   benchmarks/query-vs-prometheus.sh [--series N] [--runs R] [--warmup W] [--only Q,...] [--dir D] [--no-flame] [--keep] [--no-aot | --aot-ab | --ab-opts OPTS | --ab-root DIR]
#   benchmarks/query-vs-prometheus.sh --thanos [--thanos-engine prometheus|thanos] [--sidecar] [...]
#
# --thanos: the Sluice side is a Thanos Querier over three Sluice instances of one consumer group (a 3-partition
# topic), which hold a third of the series each (`bench query-data --instances 3`, series i in instance i mod 3)
# and serve the StoreAPI (external label sluice_instance, the Querier's replica label); the Querier
# (~/.cache/sluice/thanos-v0.42.4/thanos, built by src/test/thanos/build.sh when missing) fans every query
# out to them. Its CPU and VmHWM are the sums over the Querier and the three instances. No flame graph.
# --thanos-engine: the Querier's --query.promql-engine (default prometheus, Thanos' own default; thanos is
# its streaming engine).
# --sidecar (with --thanos): the anchor for the Querier's own cost, timed in the same alternation: a second
# Querier (same flags) over a Thanos Sidecar in front of the same Prometheus (which then has the external
# label sluice_instance=prometheus, as a Sidecar requires); its CPU and VmHWM are summed over that Querier, the
# Sidecar and Prometheus. What a Querier over any StoreAPI store costs next to Prometheus alone.
# With --thanos the Queriers' own metrics split each query's wall: HTTP handler time and Series call time.
#
# JDK AOT cache: Sluice starts as the image starts it, from a cache trained on the image's workload (ingest,
# restore, replay, PromQL): `./sluice serve` uses tools/target/sluice.aot, which `./sluice aot-train` records first
# when it is missing or older than the jar (~1 min, before the servers start). --no-aot: without a cache
# (SLUICE_AOT_CACHE=off). The output's "JDK AOT cache:" line and the JSON's aot_cache say which, from Sluice's log.
# --aot-ab: the cache's effect in one run: a second Sluice, started without the cache on a copy of the same data,
# is the anchor (sluice-no-aot), timed in the same alternation; not with --thanos.
# --ab-opts "OPTS": a JVM option's effect in one run: a second Sluice (same cache setting) started with JAVA_OPTS
# OPTS on a copy of the same data is the anchor (sluice-ab), timed in the same alternation; not with --thanos.
# --ab-root DIR: a code change's effect in one run: the second Sluice is DIR/sluice (another clone or worktree,
# its own jar and AOT cache, trained first when missing); with --ab-opts too, it also gets OPTS.
# --only: some of the queries by name (sum_rate, hist_quantile, topk, group_left, regex_count).
# Defaults: 10000 series, 10 runs after 20 warm-up runs (the JIT compiles the query path meanwhile), D=/tmp/sluice-query-bench-PID, one per run (deleted at the end unless
# --keep). Sluice runs through ./sluice, with the JVM flags users get (docs/design/memory.md); SERVER_HEAP, when
# set, adds -Xmx (default: the launcher's, 40 % of the machine). Prometheus v0.314.0 (`prometheus`, `promtool`) comes from
# PROMETHEUS_DIR (default ~/.cache/sluice/prometheus-v0.314.0), built there from the Go module
# benchmarks/anchors/prometheus when missing (Go 1.26; the Go module proxy; a few minutes the first time).
# Output: the table on stdout; every figure in benchmarks/results/<date>-query-vs-prometheus-<N>series.json;
# the flame graph in benchmarks/results/flame/ (<date>-query-<name>.html and .svg). Exit 1 if the answers differ or a server fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh

series=10000 runs=10 warmup=20 dir=/tmp/sluice-query-bench-$$ flame=1 keep=0 thanos=0 thanos_engine=prometheus sidecar=0 only=()
anchor=()
aot_ab=0 ab_opts="" ab_root=""
while [ $# -gt 0 ]; do
  case "$1" in
    --series) series="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --only) only=(--only "$2"); shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --no-flame) flame=0; shift ;;
    --keep) keep=1; shift ;;
    --no-aot) export SLUICE_AOT_CACHE=off; shift ;;
    --thanos) thanos=1; flame=0; shift ;;
    --thanos-engine) thanos_engine="$2"; shift 2 ;;
    --sidecar) sidecar=1; shift ;;
    --aot-ab) aot_ab=1; shift ;;
    --ab-opts) ab_opts="$2"; shift 2 ;;
    --ab-root) ab_root="$(cd "$2" && pwd)"; shift 2 ;;
    *) sed -n '2,43p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
if [ "$sidecar" = 1 ] && [ "$thanos" = 0 ]; then echo "--sidecar needs --thanos" >&2; exit 2; fi
if [ "$aot_ab" = 1 ] && { [ "$thanos" = 1 ] || [ "${SLUICE_AOT_CACHE:-}" = off ]; }; then echo "--aot-ab needs a cache and no --thanos" >&2; exit 2; fi
ab=""; if [ -n "$ab_opts" ] || [ -n "$ab_root" ]; then ab=1; fi
if [ -n "$ab" ] && { [ "$thanos" = 1 ] || [ "$aot_ab" = 1 ]; }; then echo "--ab-opts and --ab-root go with neither --thanos nor --aot-ab" >&2; exit 2; fi
heap_opts="${SERVER_HEAP:+-Xmx$SERVER_HEAP}"
shards="$(nproc)"
promdir="${PROMETHEUS_DIR:-$HOME/.cache/sluice/prometheus-v0.314.0}"
jar="$root/tools/target/sluice.jar"
log() { echo "[$(date -u +%T)] $*"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# --- binaries -------------------------------------------------------------------------------------
if [ ! -x "$promdir/prometheus" ] || [ ! -x "$promdir/promtool" ]; then
  log "building Prometheus v0.314.0 into $promdir (Go module benchmarks/anchors/prometheus)"
  mkdir -p "$promdir"
  (cd benchmarks/anchors/prometheus \
    && go build -o "$promdir/prometheus" github.com/prometheus/prometheus/cmd/prometheus \
    && go build -o "$promdir/promtool" github.com/prometheus/prometheus/cmd/promtool)
fi
[ -f "$jar" ] || ./mvnw -q -B -DskipTests -pl tools -am package
instances=1
if [ "$thanos" = 1 ]; then
  instances=3
  thanos_bin="$(bash src/test/thanos/build.sh | tail -1)"
fi
if [ "$flame" = 1 ]; then build_benchmarks_jar; fi

# --- data -----------------------------------------------------------------------------------------
rm -rf "$dir"
mkdir -p "$dir/logs"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "$keep" = 0 ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
log "data: $series series x 2 h at 15 s (load $(load))"
"$JAVA" "${JVM_FLAGS[@]}" -jar "$jar" bench query-data --series "$series" --shards "$shards" --instances "$instances" \
  --dir "$dir/sluice" --openmetrics "$dir/data.om" | grep -v '^write: '
"$promdir/promtool" tsdb create-blocks-from openmetrics "$dir/data.om" "$dir/prom" > "$dir/logs/promtool.log"
tail -1 "$dir/logs/promtool.log"
rm -f "$dir/data.om"
if [ "$aot_ab" = 1 ]; then cp -r "$dir/sluice" "$dir/sluice-no-aot"; fi
if [ -n "$ab" ]; then cp -r "$dir/sluice" "$dir/sluice-ab"; fi
if [ -n "$ab_root" ]; then
  [ -f "$ab_root/tools/target/sluice.jar" ] || (cd "$ab_root" && ./mvnw -q -B -o -DskipTests -pl tools -am package)
  if [ "${SLUICE_AOT_CACHE:-}" != off ] && { [ ! -f "$ab_root/tools/target/sluice.aot" ] || [ "$ab_root/tools/target/sluice.jar" -nt "$ab_root/tools/target/sluice.aot" ]; }; then
    log "training the JDK AOT cache of $ab_root"
    "$ab_root/sluice" aot-train > "$dir/logs/aot-train-ab.log" 2>&1 || { tail -3 "$dir/logs/aot-train-ab.log" >&2; exit 1; }
  fi
fi
if [ "${SLUICE_AOT_CACHE:-}" != off ] && { [ ! -f tools/target/sluice.aot ] || [ "$jar" -nt tools/target/sluice.aot ]; }; then
  log "training the JDK AOT cache: ./sluice aot-train (load $(load))"
  ./sluice aot-train > "$dir/logs/aot-train.log" 2>&1 || { tail -3 "$dir/logs/aot-train.log" >&2; exit 1; }
  tail -1 "$dir/logs/aot-train.log"
fi

# --- servers --------------------------------------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
prom_port="$(free_port)"
if [ "$sidecar" = 1 ]; then
  printf 'global:\n  external_labels:\n    sluice_instance: prometheus\n' > "$dir/prometheus.yml"
else
  echo '{}' > "$dir/prometheus.yml"
fi
"$promdir/prometheus" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/prom" \
  --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$prom_port" > "$dir/logs/prometheus.log" 2>&1 &
prom_pid=$!
pids+=("$prom_pid")
"$JAVA" "${JVM_FLAGS[@]}" -Xmx1g -jar "$jar" broker --dir "$dir/broker" --topic "metrics:$instances" > "$dir/logs/broker.log" 2>&1 &
pids+=("$!")
for _ in $(seq 600); do grep -q '^bootstrap-servers: ' "$dir/logs/broker.log" && break; sleep 0.1; done
bootstrap="$(sed -n 's/^bootstrap-servers: //p' "$dir/logs/broker.log")"
[ -n "$bootstrap" ] || { echo "the broker did not start; see $dir/logs/broker.log" >&2; exit 1; }
ready() { curl -sf -o /dev/null "http://127.0.0.1:$1/-/ready"; }
if [ "$thanos" = 0 ]; then
  sluice_port="$(free_port)"
  JAVA_OPTS="$heap_opts" "$root/sluice" serve \
    --data.dir="$dir/sluice" --head.shards="$shards" --http.host=127.0.0.1 --http.port="$sluice_port" \
    --kafka.bootstrap-servers="$bootstrap" --kafka.topics=metrics=sluice --kafka.group-id=query-bench \
    > "$dir/logs/sluice.log" 2>&1 &
  sluice_pid=$!
  pids+=("$sluice_pid")
  sluice_spec="http://127.0.0.1:$sluice_port:$sluice_pid"
  if [ "$aot_ab" = 1 ]; then
    no_aot_port="$(free_port)"
    SLUICE_AOT_CACHE=off JAVA_OPTS="$heap_opts" "$root/sluice" serve \
      --data.dir="$dir/sluice-no-aot" --head.shards="$shards" --http.host=127.0.0.1 --http.port="$no_aot_port" \
      --kafka.bootstrap-servers="$bootstrap" --kafka.topics=metrics=sluice --kafka.group-id=query-bench-no-aot \
      > "$dir/logs/sluice-no-aot.log" 2>&1 &
    pids+=("$!")
    anchor=(--anchor "http://127.0.0.1:$no_aot_port:$!" --anchor-name sluice-no-aot)
    for _ in $(seq 1200); do ready "$no_aot_port" && break; sleep 0.1; done
    ready "$no_aot_port" || { echo "Sluice without the AOT cache is not ready; see $dir/logs/sluice-no-aot.log" >&2; exit 1; }
  fi
  if [ -n "$ab" ]; then
    ab_port="$(free_port)"
    JAVA_OPTS="$heap_opts $ab_opts" "${ab_root:-$root}/sluice" serve \
      --data.dir="$dir/sluice-ab" --head.shards="$shards" --http.host=127.0.0.1 --http.port="$ab_port" \
      --kafka.bootstrap-servers="$bootstrap" --kafka.topics=metrics=sluice --kafka.group-id=query-bench-ab \
      > "$dir/logs/sluice-ab.log" 2>&1 &
    pids+=("$!")
    anchor=(--anchor "http://127.0.0.1:$ab_port:$!" --anchor-name sluice-ab)
    for _ in $(seq 1200); do ready "$ab_port" && break; sleep 0.1; done
    ready "$ab_port" || { echo "Sluice with $ab_opts is not ready; see $dir/logs/sluice-ab.log" >&2; exit 1; }
    log "sluice-ab: ${ab_root:-$root}/sluice, JAVA_OPTS $ab_opts; $(grep -m1 -o 'JVM AOT cache.*' "$dir/logs/sluice-ab.log" || echo 'no AOT cache line')"
  fi
  for _ in $(seq 1200); do ready "$prom_port" && ready "$sluice_port" && break; sleep 0.1; done
  ready "$prom_port" || { echo "Prometheus is not ready; see $dir/logs/prometheus.log" >&2; exit 1; }
  ready "$sluice_port" || { echo "Sluice is not ready; see $dir/logs/sluice.log" >&2; exit 1; }
  log "Prometheus pid $prom_pid on :$prom_port, Sluice pid $sluice_pid on :$sluice_port"
else
  # three instances of one group, a third of the series each, and a Thanos Querier over their StoreAPIs
  instance_pids=() endpoints=()
  for k in 0 1 2; do
    http_port="$(free_port)" grpc_port="$(free_port)"
    JAVA_OPTS="$heap_opts" "$root/sluice" serve \
      --data.dir="$dir/sluice/instance-$k" --head.shards="$shards" --http.host=127.0.0.1 --http.port="$http_port" \
      --kafka.bootstrap-servers="$bootstrap" --kafka.topics=metrics=sluice --kafka.group-id=query-bench \
      --store.grpc.host=127.0.0.1 --store.grpc.port="$grpc_port" --store.external-labels="sluice_instance=$k" \
      > "$dir/logs/sluice-$k.log" 2>&1 &
    instance_pids+=("$!")
    pids+=("$!")
    endpoints+=("--endpoint-strict=127.0.0.1:$grpc_port")
    for _ in $(seq 1200); do ready "$http_port" && break; sleep 0.1; done
    ready "$http_port" || { echo "Sluice instance $k is not ready; see $dir/logs/sluice-$k.log" >&2; exit 1; }
  done
  querier_port="$(free_port)"
  "$thanos_bin" query --http-address="127.0.0.1:$querier_port" --grpc-address="127.0.0.1:$(free_port)" \
    --query.replica-label=sluice_instance --deduplication.func=chain --query.promql-engine="$thanos_engine" "${endpoints[@]}" \
    > "$dir/logs/thanos-query.log" 2>&1 &
  querier_pid=$!
  pids+=("$querier_pid")
  sluice_spec="http://127.0.0.1:$querier_port:$querier_pid,$(IFS=,; echo "${instance_pids[*]}")"
  # ready once the Querier has found the three stores: count(x) answers every counter
  counters() {
    curl -sf "http://127.0.0.1:$1/api/v1/query?query=count(x)&time=$((1704067200 + 7200 - 15))" \
      | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null || echo 0
  }
  want="$((series / 2))"
  for _ in $(seq 600); do
    got="$(counters "$querier_port")"
    [ "$got" = "$want" ] && break
    sleep 0.2
  done
  ready "$prom_port" || { echo "Prometheus is not ready; see $dir/logs/prometheus.log" >&2; exit 1; }
  [ "$got" = "$want" ] || { echo "the Thanos Querier sees $got of $want counters; see $dir/logs/thanos-query.log" >&2; exit 1; }
  log "Prometheus pid $prom_pid on :$prom_port, Thanos Querier pid $querier_pid on :$querier_port over Sluice pids ${instance_pids[*]}"
  if [ "$sidecar" = 1 ]; then
    sidecar_grpc="$(free_port)"
    "$thanos_bin" sidecar --prometheus.url="http://127.0.0.1:$prom_port" --tsdb.path="$dir/prom" \
      --grpc-address="127.0.0.1:$sidecar_grpc" --http-address="127.0.0.1:$(free_port)" > "$dir/logs/thanos-sidecar.log" 2>&1 &
    sidecar_pid=$!
    pids+=("$sidecar_pid")
    anchor_port="$(free_port)"
    "$thanos_bin" query --http-address="127.0.0.1:$anchor_port" --grpc-address="127.0.0.1:$(free_port)" \
      --query.replica-label=sluice_instance --deduplication.func=chain --query.promql-engine="$thanos_engine" \
      --endpoint-strict="127.0.0.1:$sidecar_grpc" > "$dir/logs/thanos-query-sidecar.log" 2>&1 &
    anchor_pid=$!
    pids+=("$anchor_pid")
    for _ in $(seq 600); do
      got="$(counters "$anchor_port")"
      [ "$got" = "$want" ] && break
      sleep 0.2
    done
    [ "$got" = "$want" ] || { echo "the Querier over the Sidecar sees $got of $want counters; see $dir/logs/thanos-sidecar.log" >&2; exit 1; }
    anchor=(--anchor "http://127.0.0.1:$anchor_port:$anchor_pid,$sidecar_pid,$prom_pid" --anchor-name "thanos-querier+sidecar+prometheus")
    log "anchor: Thanos Querier pid $anchor_pid on :$anchor_port over Sidecar pid $sidecar_pid of Prometheus"
  fi
fi

# --- queries --------------------------------------------------------------------------------------
start=1704067200                       # QueryWorkload.START_MS
end=$((start + 7200 - 15))             # the last sample
echo "date: $(date -u +%FT%TZ); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo "load before: $(load)"
aot_cache="$(sed -n 's/.*JVM AOT cache \(.*\)/\1/p' "$dir"/logs/sluice{,-0}.log 2>/dev/null | head -n 1 || true)" # sluice-0: --thanos
status=0
side=sluice suffix=""
if [ "$thanos" = 1 ]; then side="thanos-querier+3-sluice" suffix="-thanos"; [ "$thanos_engine" = prometheus ] || suffix="-thanos-$thanos_engine"; fi
if [ "$sidecar" = 1 ]; then suffix="$suffix-sidecar"; fi
if [ "${SLUICE_AOT_CACHE:-}" = off ]; then suffix="$suffix-no-aot"; fi
if [ "$aot_ab" = 1 ]; then suffix="$suffix-aot-ab"; fi
if [ -n "$ab" ]; then suffix="$suffix-ab"; fi
if [ "$thanos" = 1 ]; then anchor+=(--querier-split); fi
python3 benchmarks/query_vs_prometheus.py --prom "http://127.0.0.1:$prom_port:$prom_pid" \
  --sluice "$sluice_spec" --sluice-name "$side" --start "$start" --end "$end" --step 15 \
  --runs "$runs" --warmup "$warmup" --aot-cache "${aot_cache:-none}" "${only[@]}" "${anchor[@]}" --json "$dir/result.json" | tee "$dir/result.txt" || status=1
echo "load after: $(load)"
mkdir -p benchmarks/results
cp "$dir/result.json" "benchmarks/results/$(date -u +%F)-query-vs-prometheus${suffix}-${series}series.json"

# --- flame graph of the slowest query on Sluice ---------------------------------------------------
if [ "$flame" = 1 ]; then
  url="$(sed -n 's/^slowest-url: //p' "$dir/result.txt")"
  name="$(sed -n 's/^slowest on Sluice (lowest speed-up): //p' "$dir/result.txt" | tr ' ' '-')"
  if [ -n "$url" ]; then
    mkdir -p benchmarks/results/flame
    out="benchmarks/results/flame/$(date +%F-%H%M%S)-query-$name"
    (while true; do curl -s -o /dev/null "$url"; done) &
    loop=$!
    "$JAVA" -cp "$BENCH_JAR" io.sluice.bench.profile.AttachProfiler "$sluice_pid" 20 cpu "$ASYNC_PROFILER_LIB" "$out.collapsed" \
      && "$JAVA" -cp "$BENCH_JAR" io.sluice.bench.profile.AttachProfiler "$sluice_pid" 10 cpu "$ASYNC_PROFILER_LIB" "$out.html"
    kill "$loop"; wait "$loop" 2>/dev/null || true
    python3 benchmarks/flame_svg.py "$out.collapsed" -o "$out.svg" --title "Sluice answering $name (CPU, 20 s)"
    log "flame graph: $out.svg and $out.html"
  fi
fi
exit "$status"
