#!/bin/bash
# The image's ENTRYPOINT: starts Sluice's JVM as PID 1 (exec, so `docker stop` sends SIGTERM to the JVM
# itself) with the image's JVM flags and, when the image has one, its JDK AOT cache. The AOT training in
# the image build (docker/aot-train.sh) starts the JVM through this same script, so training and service
# run with the same flags: a cache is refused by a JVM whose flags differ in what the cache depends on.
#
# The flags: the project's (root pom sluice.jvm.flags, ./sluice: silence the native-access and Unsafe
# warnings); the heap follows the container's memory limit at 40 % (series, chunks and the WAL mappings are off-heap and need
# the rest; it starts at 16 MB); G1 always (below 2 CPUs or 1792 MB the JVM would pick the serial collector, whose
# single-threaded full-heap pauses stall every shard and consumer); an OutOfMemoryError exits (the
# orchestrator restarts; the WALs replay); PerMethodRecompilationCutoff=4000 keeps C2 from compiling
# traps that deoptimize on every hit without recompiling (2x-CPU restarts: docs/design/jit.md;
# an AOT cache is usable with or without it); memory as ./sluice has it (docs/design/memory.md): the heap
# grows from 16 MB with need in 2 MB G1 regions (G1 picks 1 MB for a heap up to 2 GB, 2 MB up to 4, 8 MB at 9), the JVM returns freed malloc memory every 10 s, and glibc keeps 2 malloc
# arenas. More JVM flags: JAVA_TOOL_OPTIONS.
#
# AOT cache (JDK 25, JEP 483/514/515): /opt/sluice/sluice.aot holds the classes loaded and linked and
# the method profiles of a training run; starting from it saves about a second of CPU at every start.
# When the JVM cannot use it (a JAVA_TOOL_OPTIONS flag it depends on, such as
# -XX:+UseCompactObjectHeaders), the JVM prints "[warning][aot] Unable to use AOT cache" and runs
# without it, and Sluice logs "JVM AOT cache ... NOT in use" and exports sluice_jvm_aot_cache_in_use 0.
# SLUICE_JAVA_AOT=off starts without the cache (this launcher's variable: it is removed before the
# server, which reads SLUICE_* variables as settings, starts).
# AOT_CACHE_OUTPUT=FILE (the image build's training run only) records a new cache into FILE at exit.
set -euo pipefail
jar=/opt/sluice/sluice.jar
cache=/opt/sluice/sluice.aot
flags=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
       -XX:MaxRAMPercentage=40 -Xms16m -XX:+UseG1GC -XX:G1HeapRegionSize=2m -XX:TrimNativeHeapInterval=10000
       -XX:+ExitOnOutOfMemoryError -XX:PerMethodRecompilationCutoff=4000)
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
if [ -n "${AOT_CACHE_OUTPUT:-}" ]; then
  # -Xlog:aot=error: the training run warns of every class it cannot store (picocli's, ~40 lines).
  flags+=("-XX:AOTCacheOutput=$AOT_CACHE_OUTPUT" -Xlog:aot=error)
  unset AOT_CACHE_OUTPUT
elif [ -f "$cache" ] && [ "${SLUICE_JAVA_AOT:-on}" != off ]; then
  if [ "$jar" -nt "$cache" ]; then
    # A JDK 25 AOT cache does not notice a changed jar: it would run the classes it holds. The image
    # copies both together; a jar mounted over the image's must not start from the old cache.
    echo "java.sh: $cache is older than $jar (replaced?): starting without the AOT cache" >&2
  else
    flags+=("-XX:AOTCache=$cache")
  fi
fi
unset SLUICE_JAVA_AOT
exec java "${flags[@]}" -jar "$jar" "$@"
