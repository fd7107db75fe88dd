#!/bin/bash
# The image build's AOT training run (docker/Dockerfile, stage "aot"): records the JDK AOT cache FILE
# (JEP 483/514/515: classes loaded and linked, method profiles) from a short, representative workload of
# the packaged jar on the runtime image's JRE. Every JVM starts through the image's own launcher
# (java.sh), so the trained JVM has the service's flags. No network: the broker listens on loopback.
# `./sluice aot-train` runs the same workload through ./sluice (AOT_TRAIN_LAUNCHER), for ./sluice serve.
#
#   aot-train.sh FILE        (AOT_TRAIN_KEEP=1 keeps the work directory and its logs)
#
# Only the trained JVM is `sluice serve`, exactly what the image runs; helpers run untrained:
#   1. `bench replay --write-only` writes a 2-shard data directory (WAL, checkpoint, chunk files), while
#      `sluice broker` starts a Kafka broker with two topics (formats sluice and prometheus-remote-write);
#      shard 1's checkpoint is removed, so at the trained start shard 0 restores from its checkpoint and
#      chunk files while shard 1 replays its whole WAL: restore and replay both run;
#   2. `serve` (trained) on that directory: restore, replay, /-/ready, Kafka consumers;
#   3. `loadgen` produces to both topics: decode, shard appends, WAL writes, chunk cuts;
#   4. queries over HTTP while it ingests (bash /dev/tcp: no curl in a JRE image): /-/ready, /metrics,
#      series, labels, label values, query, query_range, export; then PromQL instants and ranges of many
#      shapes (aggregations, rate, topk, regex, histogram_quantile, group_left, ...) on loadgen's series;
#   5. SIGTERM: the graceful stop (offsets, drain, checkpoint); the JVM writes the cache as it exits.
# A cache of serve's classes alone is ~4x smaller and assembles faster than one of `demo` (which loads
# the whole Kafka broker into the trained JVM). Fails (exit 1, one line) when any step fails or no cache
# was written.
set -euo pipefail
out="${1:?usage: aot-train.sh FILE}"
launcher="${AOT_TRAIN_LAUNCHER:-$(dirname "$0")/java.sh}" # ./sluice aot-train sets ./sluice
unset SLUICE_AOT_CACHE # the helpers run without a cache
work="$(mktemp -d /tmp/aot-train.XXXXXX)"
broker="" serve=""
cleanup() {
  for pid in $serve $broker; do kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  [ -n "${AOT_TRAIN_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "aot-train: FAILED: $*" >&2; exit 1; }
# Polls "$@" every 0.2 s for up to 120 s.
await() { local deadline=$((SECONDS + 120)); until "$@"; do [ "$SECONDS" -lt "$deadline" ] || return 1; sleep 0.2; done; }

"$launcher" broker --dir "$work/kafka" --topic aot-sluice:2 --topic aot-rw:2 > "$work/broker.log" 2>&1 &
broker=$!
"$launcher" bench replay --write-only --samples 200000 --series 2000 --dir "$work/data" --shards 2 \
  > "$work/write.log" 2>&1 || fail "bench replay --write-only: $(tail -n 3 "$work/write.log")"
rm -rf "$work/data/shard-1"/checkpoint.* "$work/data/shard-1/chunks"
broker_up() { kill -0 "$broker" 2>/dev/null || fail "the broker exited: $(tail -n 3 "$work/broker.log")"; grep -q '^bootstrap-servers: ' "$work/broker.log"; }
await broker_up || fail "the broker did not serve within 120 s"
bootstrap="$(sed -n 's/^bootstrap-servers: //p' "$work/broker.log" | head -n 1)"

AOT_CACHE_OUTPUT="$out" "$launcher" serve --data.dir="$work/data" --head.shards=2 --http.host=127.0.0.1 \
  --http.port=0 --kafka.bootstrap-servers="$bootstrap" --kafka.topics=aot-sluice=sluice,aot-rw=prometheus-remote-write \
  --kafka.group-id=aot-train > "$work/serve.log" 2>&1 &
serve=$!
port=""
listening() {
  kill -0 "$serve" 2>/dev/null || fail "serve exited: $(tail -n 3 "$work/serve.log")"
  port="$(sed -n 's/.*HTTP listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.log" 2>/dev/null | head -n 1)" # the log may not exist yet
  [ -n "$port" ]
}
await listening || fail "serve did not listen within 120 s"
status() { # the HTTP status of GET $1; the body is read and dropped
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || { echo 000; return; }
  printf 'GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' "$1" >&3
  local line
  IFS=' ' read -r _ line _ <&3 || line=000
  cat <&3 > /dev/null || true
  exec 3<&-
  echo "$line"
}
ready() { [ "$(status /-/ready)" = 200 ]; }
await ready || fail "serve was not ready within 120 s: $(tail -n 3 "$work/serve.log")"

all='%7B__name__%3D~%22.%2B%22%7D' # {__name__=~".+"}
queries() {
  for path in /-/ready /metrics "/api/v1/series?match%5B%5D=$all" /api/v1/labels /api/v1/label/__name__/values \
      "/api/v1/query?query=$all" "/api/v1/query_range?query=$all&start=0&end=4102444800&step=60" \
      "/api/v1/export?match%5B%5D=$all"; do
    status "$path" > /dev/null
  done
}
# PromQL over loadgen's node_exporter series (the last 25 min), instant and range, in the query benchmark's
# shapes (benchmarks/query-vs-prometheus.sh) and others: the engine's classes are in the cache, loaded and
# linked, with the method profiles of its operators, aggregations, functions and answer writers (which did
# not make the benchmark's instants measurably faster: docs/design/jit.md).
promql=(
  'sum by (job) (rate(node_cpu_seconds_total[5m]))'
  'sum by (instance, mode) (irate(node_cpu_seconds_total{mode!="idle"}[5m]))'
  'topk(10, node_network_receive_bytes_total)'
  'bottomk(3, rate(node_disk_read_bytes_total[5m]))'
  'count(node_cpu_seconds_total{instance=~"10.0.0.1.*"})'
  'count by (cluster) (node_filesystem_avail_bytes{fstype!~"tmpfs|vfat"})'
  'histogram_quantile(0.99, sum by (le) (label_replace(rate(node_cpu_seconds_total[5m]), "le", "$1", "cpu", "(.*)")))'
  'rate(node_network_transmit_bytes_total[5m]) * on(instance) group_left(cluster) max by (instance, cluster) (node_memory_MemTotal_bytes)'
  '1 - node_memory_MemAvailable_bytes / on(instance) node_memory_MemTotal_bytes > 0.1'
  'avg by (cluster) (avg_over_time(node_scrape_collector_duration_seconds[10m]))'
  'max(max_over_time(node_scrape_collector_duration_seconds[5m])) by (collector)'
  'quantile(0.9, node_scrape_collector_duration_seconds) + stddev(node_scrape_collector_duration_seconds)'
  'sum without (cpu) (increase(node_cpu_seconds_total{mode="user"}[10m])) unless node_disk_io_time_seconds_total'
  'sort_desc(sum by (device) (delta(node_filesystem_free_bytes[10m])))'
  'abs(deriv(node_memory_Cached_bytes[10m])) / 1e3'
  'count_values("v", round(node_scrape_collector_success))'
  'absent(nonexistent_metric) or vector(time())'
)
url() { # the query API path for PromQL $2 (instant at $3, or range $3..$4 step $5), percent-encoded
  local q="$2" enc="" c i
  for ((i = 0; i < ${#q}; i++)); do
    c="${q:i:1}"
    case "$c" in [a-zA-Z0-9._~-]) enc+="$c" ;; *) printf -v c '%%%02X' "'$c"; enc+="$c" ;; esac
  done
  if [ "$1" = query ]; then echo "/api/v1/query?query=$enc&time=$3"; else echo "/api/v1/query_range?query=$enc&start=$3&end=$4&step=$5"; fi
}
promql_queries() {
  local now q code
  now="$(date +%s)"
  for q in "${promql[@]}"; do
    for path in "$(url query "$q" "$now")" "$(url query_range "$q" $((now - 1200)) "$now" 15)" \
        "$(url query_range "$q" $((now - 1500)) "$now" 60)"; do
      code="$(status "$path")"
      [ "$code" = 200 ] || fail "PromQL training query answered $code: $q"
    done
  done
}
for topic_format in aot-sluice:sluice aot-rw:prometheus-remote-write; do
  "$launcher" loadgen --bootstrap-servers "$bootstrap" --topic "${topic_format%%:*}" --format "${topic_format#*:}" \
    --series 1000 --samples 100000 > "$work/loadgen.log" 2>&1 || fail "loadgen: $(tail -n 3 "$work/loadgen.log")"
  queries
done
for _ in 1 2 3; do queries; done
for _ in $(seq 8); do promql_queries; done

kill -TERM "$serve"
wait "$serve" || fail "serve exited with $? after SIGTERM: $(tail -n 5 "$work/serve.log")"
serve=""
[ -s "$out" ] || fail "no AOT cache written to $out: $(tail -n 5 "$work/serve.log")"
echo "aot-train: $out, $(($(stat -c %s "$out") / 1048576)) MiB, trained in $SECONDS s"
