#!/usr/bin/env bash
# Failover time (issue 17, item 8: "after a SIGKILL of one of three instances, lag back under 2 s of data
# within 15 s"), on the real path: `sluice broker` (its own process), three `sluice serve` processes in one
# consumer group on a 12-partition topic, `sluice loadgen` producing at a steady rate. After a warm-up one
# instance gets SIGKILL; FailoverProbe (AdminClient: end offset - committed offset over every partition)
# times from the kill until the other two own every partition ("resumed") and then until every partition is
# committed up to its end offset at that moment with the group's total lag under --lag-seconds of data
# ("recovered"); DIR/<config>-lag.csv has the lag every 100 ms after the kill. One run per configuration, in this order, on the same
# broker (each with its own group and topic):
#   before          classic protocol, session 45 s and heartbeat 3 s (Kafka's defaults, Sluice's before)
#   classic         classic protocol, Sluice's defaults (kafka.session-timeout=10s, a heartbeat every second)
#   consumer        kafka.group-protocol=consumer; the broker runs with group.consumer.session.timeout.ms=10000
#                   and group.consumer.heartbeat.interval.ms=1000 (its minimums lowered to allow them)
# Every instance uses the default static membership (named after its data directory).
#
#   benchmarks/failover.sh                                   # all three, 100k samples/s
#   benchmarks/failover.sh --configs "classic consumer" --rate 50000
#
# Options (default): --rate samples/s (100000) --series (10000) --partitions (12) --warmup seconds (20)
# --lag-seconds (2) --timeout seconds (120) --configs ("before classic consumer") --dir (/tmp/sluice-failover).
# SERVER_HEAP (512m) is each server's -Xmx. Prints one `failover <config>:` line per configuration and writes
# DIR/result.txt. Exit 1 when an instance fails to start or a configuration does not recover in time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh

rate=100000; series=10000; partitions=12; warmup=20; lag_seconds=2; timeout=120
configs="before classic consumer"; dir=/tmp/sluice-failover
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate="$2"; shift 2 ;;
    --series) series="$2"; shift 2 ;;
    --partitions) partitions="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --lag-seconds) lag_seconds="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --configs) configs="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    *) echo "failover: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
heap="${SERVER_HEAP:-512m}"
jar="${FAILOVER_JAR:-$root/tools/target/sluice.jar}"
[ -f "$jar" ] || ./mvnw -q -B -DskipTests -pl tools -am package
probe="$root/benchmarks/src/main/java/io/sluice/bench/kafka/FailoverProbe.java"

rm -rf "$dir"; mkdir -p "$dir/logs"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ready() { curl -fs -o /dev/null "http://127.0.0.1:$1/-/ready"; }

# --- broker: one topic per configuration ------------------------------------------------------------
topic_args=()
for c in $configs; do topic_args+=(--topic "metrics-$c:$partitions"); done
"$JAVA" "${JVM_FLAGS[@]}" -Xmx1g -jar "$jar" broker --dir "$dir/broker" "${topic_args[@]}" \
  --config group.consumer.min.session.timeout.ms=6000 --config group.consumer.session.timeout.ms=10000 \
  --config group.consumer.min.heartbeat.interval.ms=1000 --config group.consumer.heartbeat.interval.ms=1000 \
  > "$dir/logs/broker.log" 2>&1 &
pids+=($!)
bootstrap="$(broker_address "$dir/logs/broker.log")"
log "broker at $bootstrap"

settings_of() {
  case "$1" in
    before) echo "--kafka.session-timeout=45s --kafka.heartbeat.interval.ms=3000" ;;
    classic) echo "" ;;
    consumer) echo "--kafka.group-protocol=consumer" ;;
    *) echo "failover: unknown configuration $1" >&2; exit 2 ;;
  esac
}

# The producer must outlast warm-up + failover + the time the servers take to become ready.
samples=$((rate * (warmup + timeout + 60)))
status=0
: > "$dir/result.txt"
for c in $configs; do
  run=()
  for name in a b c; do
    # One at a time, and again when one gives up at start (on a saturated machine the broker can take
    # longer than the server's 10 s start-up check to answer).
    started=""
    for attempt in 1 2 3; do
      port="$(free_port)"
      # shellcheck disable=SC2046
      "$JAVA" "${JVM_FLAGS[@]}" -Xmx"$heap" -jar "$jar" serve --data.dir="$dir/$c/data-$name" \
        --kafka.bootstrap-servers="$bootstrap" --kafka.topics="metrics-$c=sluice" --kafka.group-id="failover-$c" \
        --head.shards=1 --http.host=127.0.0.1 --http.port="$port" $(settings_of "$c") \
        > "$dir/logs/$c-$name-$attempt.log" 2>&1 &
      pid=$!; pids+=("$pid")
      for _ in $(seq 1200); do { ready "$port" || ! kill -0 "$pid" 2>/dev/null; } && break; sleep 0.1; done
      if ready "$port"; then started="$pid"; break; fi
      kill -9 "$pid" 2>/dev/null || true
    done
    [ -n "$started" ] || { echo "server $name of $c did not become ready; see $dir/logs/$c-$name-*.log" >&2; exit 1; }
    run+=("$started")
  done
  log "$c: three servers ready (pids ${run[*]})"
  "$JAVA" "${JVM_FLAGS[@]}" -Xmx1g -jar "$jar" loadgen --bootstrap-servers "$bootstrap" --topic "metrics-$c" \
    --format sluice --series "$series" --samples "$samples" --rate "$rate" > "$dir/logs/$c-loadgen.log" 2>&1 &
  loadgen=$!; pids+=($loadgen)
  log "$c: loadgen at $rate samples/s; warm-up ${warmup}s, then SIGKILL of pid ${run[1]}"
  line="$("$JAVA" -cp "$jar" "$probe" --bootstrap-servers "$bootstrap" --group "failover-$c" --topic "metrics-$c" \
    --partitions "$partitions" --kill "${run[1]}" --warmup-seconds "$warmup" --lag-seconds "$lag_seconds" \
    --timeout-seconds "$timeout" --trace "$dir/$c-lag.csv" 2>"$dir/logs/$c-probe.log")" || status=1
  echo "failover $c: ${line#failover: } load=\"$(cut -d' ' -f1-3 /proc/loadavg)\"" | tee -a "$dir/result.txt"
  kill -9 "$loadgen" "${run[@]}" 2>/dev/null || true
  wait "$loadgen" "${run[@]}" 2>/dev/null || true   # (the shell reports each one killed)
done
exit "$status"
