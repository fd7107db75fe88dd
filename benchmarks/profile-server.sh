#!/usr/bin/env bash
# Attaches async-profiler to a running Sluice (or any JVM of this user) for N seconds and writes a
# flame graph (HTML) per event:
#
#   benchmarks/profile-server.sh PID SECONDS [cpu|alloc|both|wall]     # default: both (cpu, then alloc)
#   benchmarks/profile-server.sh --port 9091 30                        # the JVM listening on that TCP port
#
# Output: benchmarks/results/flame/<date-time>-server-<pid>-<event>.html. The target needs no flag
# (the JDK Attach API loads the agent); it logs a one-line warning about a dynamically loaded agent
# unless started with -XX:+EnableDynamicAgentLoading.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
if [ "$1" = "--port" ]; then
  port="$2"; shift 2
  pid="$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true)"
  [ -n "$pid" ] || { echo "no process listens on TCP port $port" >&2; exit 1; }
else
  pid="$1"; shift
fi
[ $# -ge 1 ] || usage
seconds="$1"; mode="${2:-both}"
kill -0 "$pid" 2>/dev/null || { echo "no process $pid" >&2; exit 1; }
case "$mode" in
  both) events=(cpu alloc) ;;
  cpu|alloc|wall|itimer) events=("$mode") ;;
  *) usage ;;
esac
build_benchmarks_jar
mkdir -p benchmarks/results/flame
for event in "${events[@]}"; do
  out="benchmarks/results/flame/$(date +%F-%H%M%S)-server-$pid-$event.html"
  "$JAVA" -cp "$BENCH_JAR" io.sluice.bench.profile.AttachProfiler "$pid" "$seconds" "$event" "$ASYNC_PROFILER_LIB" "$out"
done
