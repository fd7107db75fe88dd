#!/usr/bin/env bash
# Runs the JMH suite, or the benchmarks whose names match a regex, with -prof gc, and writes
# JSON results to benchmarks/results/<date>-<name>.json.
#
#   benchmarks/run.sh                 # everything
#   benchmarks/run.sh 'wal\.'         # one area (package names: wal, chunks, labels, head, decode)
#   benchmarks/run.sh Xor -p shape=jittered   # extra JMH arguments after the regex
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
  for c in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25*; do
    if [ -x "$c/bin/java" ] && "$c/bin/java" -version 2>&1 | grep -q 'version "25'; then JAVA_HOME="$c"; break; fi
  done
fi
export JAVA_HOME
jar="benchmarks/target/benchmarks.jar"
if [ ! -f "$jar" ] || [ -n "$(find wal ingest-core ingest-server benchmarks -name '*.java' -newer "$jar" -print -quit 2>/dev/null)" ]; then
  ./mvnw -q -B -DskipTests -pl benchmarks -am package
fi

regex="${1:-.}"; shift || true
mkdir -p benchmarks/results
name="$(echo "$regex" | tr -c 'A-Za-z0-9' '_' | sed 's/_*$//')"
out="benchmarks/results/$(date +%F)-${name:-all}.json"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -jar "$jar" "$regex" -prof gc -rf json -rff "$out" "$@"
echo "results: $out"
