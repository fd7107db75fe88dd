# Sourced by the benchmark scripts: finds a JDK 25 (JAVA_HOME if it is one), rebuilds
# benchmarks/target/benchmarks.jar when a source is newer, and defines the JVM flags.
# Expects to run from the repository root.
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
  for c in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25*; do
    if [ -x "$c/bin/java" ] && "$c/bin/java" -version 2>&1 | grep -q 'version "25'; then JAVA_HOME="$c"; break; fi
  done
fi
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
BENCH_JAR="benchmarks/target/benchmarks.jar"
ASYNC_PROFILER_LIB="$(pwd)/benchmarks/target/async-profiler/linux-$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')/libasyncProfiler.so"

build_benchmarks_jar() {
  # Every module of the root pom but the end-to-end tests: a module added later is covered without an edit here.
  local modules=()
  mapfile -t modules < <(sed -n 's|.*<module>\(.*\)</module>.*|\1|p' pom.xml | grep -v '^src/test$')
  if [ ! -f "$BENCH_JAR" ] || [ ! -f "$ASYNC_PROFILER_LIB" ] \
     || [ -n "$(find "${modules[@]}" -path '*/target' -prune -o -name '*.java' -newer "$BENCH_JAR" -print -quit 2>/dev/null)" ]; then
    ./mvnw -q -B -DskipTests -pl benchmarks -am package
  fi
}

# A file-name-safe form of a regex: 'wal\.' -> wal
safe_name() {
  echo "$1" | tr -c 'A-Za-z0-9' '_' | sed 's/_*$//'
}

# Waits for `sluice broker`'s ready line in its log ($1) and prints the address; fails when it never comes.
broker_address() {
  for _ in $(seq 600); do grep -q '^bootstrap-servers: ' "$1" && break; sleep 0.1; done
  local address
  address="$(sed -n 's/^bootstrap-servers: //p' "$1" | head -n 1)"
  [ -n "$address" ] || { echo "the broker did not start; see $1" >&2; return 1; }
  echo "$address"
}
