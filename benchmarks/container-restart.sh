#!/usr/bin/env bash
# Container restart-to-ready with and without the image's JDK AOT cache (docker/README.md "AOT cache"),
# interleaved: each run starts the image's `serve` on a fresh copy of the same data directory (a WAL
# only: checkpoints and chunk files removed, so the start replays every sample) against a Kafka broker on
# the host, and measures the seconds from `podman run` to /-/ready answering 200 and the CPU seconds the
# JVM (the container's PID 1, all its threads) used until then, from /proc/1/stat inside the container.
#
#   benchmarks/container-restart.sh [--samples N] [--rounds R] [--image IMAGE]
#
# Needs the image (docker/build-local.sh, SLUICE_IMAGE) and podman configured as build-local.sh does.
# Prints one line per run: "aot|off wall_s cpu_s replay=S load=L", then the medians.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
samples=10000000 rounds=3 image="${SLUICE_IMAGE:-localhost/sluice:local}"
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) samples="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --image) image="$2"; shift 2 ;;
    *) echo "usage: $0 [--samples N] [--rounds R] [--image IMAGE]" >&2; exit 2 ;;
  esac
done
export CONTAINERS_CONF="${CONTAINERS_CONF:-/var/tmp/sluice-image/containers.conf}"
work="$(mktemp -d /tmp/container-restart.XXXXXX)"
broker_pid="" container=""
cleanup() {
  [ -n "$container" ] && podman rm -f "$container" > /dev/null 2>&1 || true
  [ -n "$broker_pid" ] && kill -TERM "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$root/sluice" broker --topic restart-bench:2 > "$work/broker.log" 2>&1 &
broker_pid=$!
"$root/sluice" bench replay --write-only --samples "$samples" --series 10000 --dir "$work/pristine" --shards 2 \
  > "$work/write.log" 2>&1
rm -rf "$work/pristine"/shard-*/checkpoint.* "$work/pristine"/shard-*/chunks
deadline=$((SECONDS + 300))
until grep -q '^bootstrap-servers: ' "$work/broker.log"; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "the broker did not start" >&2; exit 1; }
  sleep 0.2
done
bootstrap="$(sed -n 's/^bootstrap-servers: //p' "$work/broker.log" | head -n 1)"
printf 'data.dir: /var/lib/sluice\nhead.shards: 2\nhttp.host: 127.0.0.1\n' > "$work/sluice.yaml"
chmod 644 "$work/sluice.yaml"

run() { # $1 = aot|off; prints "mode wall_s cpu_s load"
  local mode="$1" port=$((20000 + RANDOM % 40000))
  rm -rf "$work/data" && cp -a "$work/pristine" "$work/data" && chown -R 10001:10001 "$work/data"
  sync
  container="restart-bench-$$"
  local t0 t1 cpu
  t0=$(date +%s.%N)
  # A new consumer group each run: a killed member of the last run would hold up the join (static
  # membership waits for it until its session times out).
  podman run -d --name "$container" --network host --memory 2g --health-interval=disable \
    -v "$work/sluice.yaml:/etc/sluice/sluice.yaml:ro" -v "$work/data:/var/lib/sluice" \
    -e SLUICE_JAVA_AOT="$([ "$mode" = aot ] && echo on || echo off)" -e SLUICE_HTTP_PORT="$port" \
    -e SLUICE_KAFKA_BOOTSTRAP_SERVERS="$bootstrap" -e SLUICE_KAFKA_TOPICS=restart-bench=sluice \
    -e SLUICE_KAFKA_GROUP_ID="$container-$mode-$RANDOM" "$image" > /dev/null
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/ready")" = 200 ]; do
    [ "$(podman inspect --format '{{.State.Running}}' "$container")" = true ] \
      || { podman logs "$container" 2>&1 | tail -n 5 >&2; exit 1; }
    sleep 0.05
  done
  t1=$(date +%s.%N)
  # The JVM is PID 1 of the container: its utime + stime (clock ticks), all its threads.
  cpu="$(podman exec "$container" cat /proc/1/stat | awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz * 1e6 }')"
  podman logs "$container" > "$work/server.log" 2>&1
  if [ "$mode" = aot ]; then
    grep -q "JVM AOT cache .* in use" "$work/server.log" || { echo "the AOT cache was not used" >&2; exit 1; }
  fi
  podman rm -f "$container" > /dev/null
  container=""
  # Where the time went, from the server's log: WAL replay, then the Kafka group join until ready.
  local replay_ms
  replay_ms="$(sed -n 's/.*replayed in \([0-9]*\) ms.*/\1/p' "$work/server.log" | head -n 1)"
  awk -v m="$mode" -v a="$t0" -v b="$t1" -v c="$cpu" -v r="${replay_ms:-0}" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "%s %.2f %.2f replay=%.2fs load=%s\n", m, b - a, c / 1e6, r / 1000, l }'
}

# Interleaved, the order swapped every round (a shared machine's load drifts).
for round in $(seq 1 "$rounds"); do
  modes="off aot"
  [ $((round % 2)) = 0 ] && modes="aot off"
  for mode in $modes; do
    run "$mode" >> "$work/runs" # not in a pipeline: run sets $container for cleanup
    tail -n 1 "$work/runs"
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for mode in off aot; do
  echo "median $mode: $(awk -v m="$mode" '$1 == m { print $2 }' "$work/runs" | median) s to ready," \
    "$(awk -v m="$mode" '$1 == m { print $3 }' "$work/runs" | median) CPU-s ($rounds runs)"
done
