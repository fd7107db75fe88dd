#!/usr/bin/env bash
# Restart after kill -9 with many active series (issue 6: "1 M active series, <= 10 s to ready"), on the
# real path: `sluice broker` (its own process), `sluice serve` on a data directory, `sluice loadgen`
# writing node-exporter-like series at a steady rate. Once every shard has written a checkpoint and
# --after-checkpoint-samples more samples were appended (WAL beyond the checkpoint), the server gets
# SIGKILL while the producer keeps writing; a new server on the same data directory is timed from
# process start to `/-/ready` 200 and to its first query answer. Then the producer finishes, the lag
# must drain, and the samples must add up exactly: checkpoint-restored + WAL-replayed + appended after
# the restart = produced (0 lost, 0 twice), every series present, spot-checked series hold every sample.
# The server runs with the default group membership (static, named after its data directory), so the
# restart rejoins the consumer group as the same member at once.
#
#   benchmarks/restart-after-kill.sh                                    # 1 M series, 5 min checkpoints
#   benchmarks/restart-after-kill.sh --checkpoint-interval 60s --windows 3   # shorter wait for the first checkpoint
#   benchmarks/restart-after-kill.sh --series 20000 --rate 50000 --windows 10 --checkpoint-interval 5s   # quick
#
# Options (default): --series (1000000) --rate samples/s (200000) --windows: produced samples = series x 10
# x windows (8: 80 M samples, 400 s at the default rate; the producer must outlast the first checkpoint plus
# --after-checkpoint-samples, else the script waits in vain) --checkpoint-interval (5m) --after-checkpoint-samples (2000000, WAL to replay)
# --partitions (4) --shards (2) --dir (/tmp/sluice-restart) --profile (async-profiler on the restart,
# flame graph in DIR) --aot-cache FILE (the restarted server uses this JDK AOT cache, JEP 483/514; if FILE
# does not exist yet, the restarted server records it instead: a training run, written when it stops at the
# end; run the script again to use it). SERVER_HEAP (2g) is the server's -Xmx. Prints one `restart:` summary
# line and writes DIR/result.txt. Exit 1 when a check fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh

series=1000000; rate=200000; windows=8; checkpoint_interval=5m; after_checkpoint=2000000
partitions=4; shards=2; dir=/tmp/sluice-restart; profile=0; aot_cache=""
while [ $# -gt 0 ]; do
  case "$1" in
    --series) series="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --windows) windows="$2"; shift 2 ;;
    --checkpoint-interval) checkpoint_interval="$2"; shift 2 ;;
    --after-checkpoint-samples) after_checkpoint="$2"; shift 2 ;;
    --partitions) partitions="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --profile) profile=1; shift ;;
    --aot-cache) aot_cache="$(realpath -m "$2")"; shift 2 ;;
    *) echo "restart-after-kill: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
samples=$((series * 10 * windows))   # the loadgen sends 10 scrapes of a series per record: whole windows
heap="${SERVER_HEAP:-2g}"
jar="${RESTART_JAR:-$root/tools/target/sluice.jar}"   # RESTART_JAR: measure a copy while the tree rebuilds (SLUICE_* would be server settings)
[ -f "$jar" ] || ./mvnw -q -B -DskipTests -pl tools -am package
if [ "$profile" = 1 ]; then build_benchmarks_jar; fi

rm -rf "$dir"; mkdir -p "$dir/logs"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*"; }
now() { date +%s.%N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# --- broker ---------------------------------------------------------------------------------------
"$JAVA" "${JVM_FLAGS[@]}" -Xmx1g -jar "$jar" broker --dir "$dir/broker" --topic "metrics:$partitions" \
  > "$dir/logs/broker.log" 2>&1 &
pids+=($!)
bootstrap="$(broker_address "$dir/logs/broker.log")"
log "broker at $bootstrap"

# --- server -------------------------------------------------------------------------------------
port="$(free_port)"
url="http://127.0.0.1:$port"
server_pid=""
start_server() { # $1: log name; extra JVM options after it
  local name="$1"; shift
  "$JAVA" "${JVM_FLAGS[@]}" -Xmx"$heap" "$@" -jar "$jar" serve --data.dir="$dir/data" \
    --kafka.bootstrap-servers="$bootstrap" --kafka.topics=metrics=sluice --kafka.group-id=restart \
    --head.shards="$shards" \
    --head.checkpoint-interval="$checkpoint_interval" --http.host=127.0.0.1 --http.port="$port" \
    > "$dir/logs/$name.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
}
# Sum of a metric's lines on /metrics whose text contains $2 ("" for all).
metric() { curl -sf "$url/metrics" | awk -v m="$1" -v f="${2:-}" \
  'index($0, m"{")==1 || index($0, m" ")==1 { if (f=="" || index($0, f)) s += $NF } END { printf "%.0f\n", s }'; }
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/-/ready")" = 200 ]; }
wait_until() { # $1: seconds, $2..: command
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@"; do [ "$(date +%s)" -lt "$deadline" ] || return 1; sleep 0.05; done
}

start_server run1
wait_until 300 ready || { echo "the first server never became ready; see $dir/logs/run1.log" >&2; exit 1; }
log "server 1 ready (pid $server_pid)"

# --- producer: keeps writing while the server is killed and restarted ---------------------------
"$JAVA" "${JVM_FLAGS[@]}" -Xmx1g -jar "$jar" loadgen --bootstrap-servers "$bootstrap" --topic metrics \
  --format sluice --series "$series" --samples "$samples" --rate "$rate" > "$dir/logs/loadgen.log" 2>&1 &
loadgen_pid=$!
pids+=("$loadgen_pid")
log "loadgen: $series series, $samples samples at $rate samples/s"

# The producer ended and everything was consumed: a wait for more would be in vain.
producer_done() { ! kill -0 "$loadgen_pid" 2>/dev/null && [ "$(metric sluice_consumer_lag)" -eq 0 ]; }
# Checkpoints counted from the first appended sample on, so the one the restart loads holds series.
appended_some() { [ "$(metric sluice_samples_appended_total)" -gt 0 ] || producer_done; }
wait_until 600 appended_some || { echo "nothing appended within 10 minutes" >&2; exit 1; }
checkpoints_before="$(metric sluice_checkpoints_written_total)"
enough_checkpoints() { [ "$(metric sluice_checkpoints_written_total)" -ge $((checkpoints_before + shards)) ]; }
checkpointed() { enough_checkpoints || producer_done; }
wait_until 3600 checkpointed || { echo "no checkpoint within an hour" >&2; exit 1; }
enough_checkpoints \
  || { echo "the producer ended before the first checkpoint: raise --windows or shorten --checkpoint-interval" >&2; exit 1; }
at_checkpoint="$(metric sluice_samples_appended_total)"
log "every shard checkpointed; $at_checkpoint samples appended so far"
more_wal() { [ "$(metric sluice_samples_appended_total)" -ge $((at_checkpoint + after_checkpoint)) ]; }
more_wal_or_done() { more_wal || producer_done; }
wait_until 3600 more_wal_or_done || { echo "the server stopped appending" >&2; exit 1; }
more_wal || { echo "the producer ended before $after_checkpoint samples followed the checkpoint: raise --windows" >&2; exit 1; }
appended_run1="$(metric sluice_samples_appended_total)"
kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true
log "SIGKILL with about $appended_run1 samples appended ($((appended_run1 - at_checkpoint)) after the checkpoint)"
du -sh "$dir/data" | sed 's/^/data dir: /'

# --- the timed restart ----------------------------------------------------------------------------
extra=()
if [ "$profile" = 1 ]; then
  extra=("-agentpath:$ASYNC_PROFILER_LIB=start,event=cpu,interval=1ms,file=$dir/restart-flame.html")
fi
aot_mode=none
if [ -n "$aot_cache" ] && [ -f "$aot_cache" ]; then
  extra+=("-XX:AOTCache=$aot_cache"); aot_mode=used
elif [ -n "$aot_cache" ]; then
  extra+=("-XX:AOTCacheOutput=$aot_cache"); aot_mode=training
fi
t0="$(now)"
start_server run2 "${extra[@]}"
clk="$(getconf CLK_TCK)"
t_ready=""; t_query=""; cpu_ready=""; rss_ready=""
first_query() { # one instance's series: an answer that needs the restored index
  curl -sf "$url/api/v1/series?match[]=%7Binstance%3D%2210.0.0.0%3A9100%22%7D" | grep -q '"instance"'
}
deadline=$(( $(date +%s) + 600 ))
while [ -z "$t_ready" ] || [ -z "$t_query" ]; do
  kill -0 "$server_pid" 2>/dev/null || { echo "the restarted server exited; see $dir/logs/run2.log" >&2; exit 1; }
  [ "$(date +%s)" -lt "$deadline" ] || { echo "not ready within 600 s" >&2; exit 1; }
  if [ -z "$t_query" ] && first_query; then t_query="$(now)"; fi
  if [ -z "$t_ready" ] && ready; then
    t_ready="$(now)"
    read -r ut st < <(awk '{print $14, $15}' "/proc/$server_pid/stat")
    cpu_ready="$(echo "scale=2; ($ut + $st) / $clk" | bc)"
    rss_ready="$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$server_pid/status")"
  fi
  sleep 0.02
done
ready_s="$(echo "$t_ready - $t0" | bc)"; query_s="$(echo "$t_query - $t0" | bc)"
log "ready after ${ready_s} s, first query answer after ${query_s} s"
restored="$(metric sluice_restore_samples_total)"
replayed="$(metric sluice_replay_samples_total)"
replay_records="$(metric sluice_replay_records_total)"
series_after="$(metric sluice_series_active)"
replay_log="$(grep -m1 'replayed in' "$dir/logs/run2.log" | sed 's/.* - //')"

# --- the producer finishes; the lag must drain ----------------------------------------------------
wait "$loadgen_pid" || { echo "loadgen failed; see $dir/logs/loadgen.log" >&2; exit 1; }
drained() {
  [ "$(metric sluice_consumer_lag)" -eq 0 ] \
    && [ $(( $(metric sluice_restore_samples_total) + $(metric sluice_replay_samples_total) \
             + $(metric sluice_samples_appended_total) )) -ge "$samples" ]
}
t_drain0="$(now)"
drain_ok=1; wait_until 1800 drained || drain_ok=0
drain_s="$(echo "$(now) - $t_drain0" | bc)"
appended_run2="$(metric sluice_samples_appended_total)"
skipped="$(metric sluice_samples_already_applied_total)"
rejected="$(metric sluice_samples_rejected_total)"
duplicate="$(metric sluice_samples_duplicate_total)"
series_end="$(metric sluice_series_active)"
stored=$((restored + replayed + appended_run2))
rss_end="$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$server_pid/status")"

# Spot check: every series of five instances spread over the population holds all its samples.
per_series=$((samples / series)); instances=$(( (series + 199) / 200 )); spot_bad=0
for i in 0 $((instances / 4)) $((instances / 2)) $((instances * 3 / 4)) $((instances - 1)); do
  name="10.$((i >> 16 & 255)).$((i >> 8 & 255)).$((i & 255)):9100"
  counts="$(curl -sf "$url/api/v1/export?match[]=%7Binstance%3D%22$name%22%7D" \
    | jq -r '.timestamps | length' | sort | uniq -c | tr '\n' ' ')"
  expect_series=$(( i == instances - 1 ? series - i * 200 : 200 ))
  if [ "$counts" != "$(printf '%7d %d ' "$expect_series" "$per_series")" ]; then
    spot_bad=$((spot_bad + 1)); echo "spot check $name: series x samples = $counts (want $expect_series x $per_series)"
  fi
done

kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true
if [ "$aot_mode" = training ]; then log "AOT cache: $(ls -l "$aot_cache" 2>/dev/null || echo "not written, see $dir/logs/run2.log")"; fi
verdict=OK
[ "$drain_ok" = 1 ] && [ "$stored" -eq "$samples" ] && [ "$series_end" -eq "$series" ] && [ "$spot_bad" -eq 0 ] \
  && [ "$rejected" -eq 0 ] && [ "$duplicate" -eq 0 ] || verdict=FAILED
summary="restart: series=$series produced=$samples aot_cache=$aot_mode ready_s=$ready_s first_query_s=$query_s cpu_s_to_ready=$cpu_ready \
peak_rss_mb_at_ready=$rss_ready peak_rss_mb_end=$rss_end series_at_ready=$series_after restored_samples=$restored \
replayed_samples=$replayed replayed_records=$replay_records appended_after_restart=$appended_run2 \
stored=$stored lost=$((samples - stored)) already_applied_skipped=$skipped rejected=$rejected duplicate=$duplicate \
series_end=$series_end drain_s=$drain_s spot_checks_failed=$spot_bad verdict=$verdict"
echo "server log: $replay_log"
echo "$summary" | tee "$dir/result.txt"
[ "$verdict" = OK ]
