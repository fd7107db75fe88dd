#!/usr/bin/env bash
# Builds Sluice's image from docker/Dockerfile with podman where there is no Docker engine and no
# registry, then smoke-tests it. What it does, step by step, and how long each step takes:
# docker/README.md.
#
#   docker/build-local.sh              build, then smoke-test
#   docker/build-local.sh --no-smoke   build only
#
# Bases: a Debian bookworm minbase (debootstrap, cached), plus this machine's Temurin JDK 25 as the
# build image and a jlinked JRE 25 as the runtime image, passed to the Dockerfile as BUILD_IMAGE and
# RUNTIME_IMAGE. Smoke test: a Kafka broker on the host (`sluice broker`), the container against it
# (host network), /-/ready, the HEALTHCHECK, /metrics, samples from `sluice loadgen` stored,
# SIGTERM -> graceful exit, the WALs on the volume; and the compose file parses.
#
# Environment: SLUICE_IMAGE (default localhost/sluice:local), SLUICE_IMAGE_CACHE (default
# /var/tmp/sluice-image), SLUICE_JDK (default /usr/lib/jvm/temurin-25-jdk-amd64), SLUICE_M2 (the
# Maven repository to build from, default ~/.m2), SLUICE_DEBIAN_MIRROR, SLUICE_SMOKE_DEADLINE_S (how
# long each awaited smoke-test event may take, default 300).
# Prints each step; on failure exits 1 with one line "build-local: FAILED: <reason>".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
image="${SLUICE_IMAGE:-localhost/sluice:local}"
cache="${SLUICE_IMAGE_CACHE:-/var/tmp/sluice-image}"
jdk="${SLUICE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"
m2="${SLUICE_M2:-$HOME/.m2}"
mirror="${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
base=localhost/debian-minbase
# What the server needs (jdeps --print-module-deps of sluice.jar: Kafka's broker classes pull in
# java.desktop, java.rmi, java.scripting, java.compiler) plus what operators use: JFR and its
# management bean, jcmd, the SASL/Kerberos and PKCS#11 providers Kafka clients may be configured with.
jre_modules="java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.net.http,\
java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.charsets,\
jdk.crypto.cryptoki,jdk.jcmd,jdk.jfr,jdk.management,jdk.management.jfr,jdk.naming.dns,jdk.net,\
jdk.security.auth,jdk.security.jgss,jdk.unsupported,jdk.zipfs"
smoke=1
[ "${1:-}" = "--no-smoke" ] && smoke=0

started=$SECONDS
step() { printf 'build-local [%4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() { echo "build-local: FAILED: $*" >&2; exit 1; }

# ------------------------------------------------------------------------------------------- tools
install_tools() {
  local missing=()
  for tool in podman runc debootstrap; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  find_python || missing+=(python3-yaml)
  [ ${#missing[@]} -eq 0 ] && { step "tools: podman, runc, debootstrap present"; return; }
  [ "$(id -u)" = 0 ] || fail "needs ${missing[*]}: run as root (apt-get install) or install them"
  step "tools: apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
    || fail "apt-get install ${missing[*]} failed"
  find_python || fail "no python3 with the yaml module, even after installing python3-yaml"
}

# A python3 that has PyYAML (the compose check): the one on PATH, else Debian's, which python3-yaml serves.
python=""
find_python() {
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import yaml' 2>/dev/null; then python="$candidate"; return 0; fi
  done
  return 1
}

# podman here needs runc and explicit ulimits (shared/TOOLCHAIN.md).
configure_podman() {
  mkdir -p "$cache"
  cat > "$cache/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]

[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF="$cache/containers.conf"
}

# ------------------------------------------------------------------------------------------- bases
# A Debian bookworm minbase root filesystem, made once and kept as a tarball in the cache.
base_image() {
  if podman image exists "$base"; then
    step "base: $base present"
    return
  fi
  local tarball="$cache/debian-minbase-bookworm.tar"
  if [ ! -f "$tarball" ]; then
    step "base: debootstrap --variant=minbase bookworm (about a minute)"
    rm -rf "$cache/rootfs.partial"
    debootstrap --variant=minbase bookworm "$cache/rootfs.partial" "$mirror" > "$cache/debootstrap.log" 2>&1 \
      || fail "debootstrap failed, see $cache/debootstrap.log"
    # The downloaded packages, apt's lists and man pages are no use in an image (about 35 MB).
    rm -rf "$cache/rootfs.partial"/var/cache/apt/archives/*.deb "$cache/rootfs.partial"/var/lib/apt/lists/* \
      "$cache/rootfs.partial"/usr/share/man/*
    tar -C "$cache/rootfs.partial" -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
    rm -rf "$cache/rootfs.partial"
  fi
  step "base: podman import $tarball"
  podman import "$tarball" "$base" > "$cache/import.log" 2>&1 || fail "podman import of $tarball failed, see $cache/import.log"
}

# An image FROM the minbase with a Java runtime at /opt/java/openjdk (where the Temurin images keep
# theirs, with JAVA_HOME and PATH set alike). $1 = tag, $2 = directory holding the runtime as java/.
java_image() {
  local tag="$1" context="$2"
  cat > "$context/Containerfile" <<EOF
FROM $base
COPY java /opt/java/openjdk
ENV JAVA_HOME=/opt/java/openjdk \\
    PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    LANG=C.UTF-8
EOF
  podman build --quiet --pull=never -t "$tag" "$context" >/dev/null || fail "building $tag failed"
  rm -rf "$context"
}

# Tags carry a hash of their inputs, so a new JDK or module list makes a new image and a re-run reuses.
jdk_key() { { cat "$jdk/release"; echo "$1"; } | sha256sum | cut -c1-12; }

build_jdk_image() {
  build_image_tag="localhost/sluice-build-jdk:25-$(jdk_key jdk)"
  if podman image exists "$build_image_tag"; then
    step "build image: $build_image_tag present"
    return
  fi
  step "build image: $build_image_tag (minbase + $jdk)"
  local context="$cache/jdk-context"
  rm -rf "$context" && mkdir -p "$context"
  cp -rL "$jdk" "$context/java" # -L: the JDK's cacerts is a symlink into the host's /etc
  java_image "$build_image_tag" "$context"
}

build_jre_image() {
  runtime_image_tag="localhost/sluice-jre:25-$(jdk_key "$jre_modules")"
  if podman image exists "$runtime_image_tag"; then
    step "runtime image: $runtime_image_tag present"
    return
  fi
  step "runtime image: $runtime_image_tag (minbase + jlink of $(tr ',' '\n' <<<"$jre_modules" | wc -l) modules)"
  local context="$cache/jre-context"
  rm -rf "$context" && mkdir -p "$context"
  "$jdk/bin/jlink" --add-modules "$jre_modules" --strip-debug --no-man-pages --no-header-files \
    --output "$context/java" || fail "jlink failed"
  # A linked runtime may keep the JDK's cacerts as a link into the host's /etc; ship the file itself.
  cp --remove-destination -L "$jdk/lib/security/cacerts" "$context/java/lib/security/cacerts"
  java_image "$runtime_image_tag" "$context"
}

# ------------------------------------------------------------------------------------------- image
build_sluice_image() {
  mkdir -p "$m2/repository"
  step "image: podman build -f docker/Dockerfile -t $image (Maven repository: $m2, bind-mounted)"
  local t0=$SECONDS
  podman build --format docker --pull=never -f "$root/docker/Dockerfile" \
    --build-arg BUILD_IMAGE="$build_image_tag" --build-arg RUNTIME_IMAGE="$runtime_image_tag" \
    --build-arg MAVEN_REPO=/host-m2/repository --volume "$m2:/host-m2" \
    -t "$image" "$root" > "$cache/podman-build.log" 2>&1 \
    || { tail -n 30 "$cache/podman-build.log" >&2; fail "podman build failed, see $cache/podman-build.log"; }
  step "image: built in $((SECONDS - t0)) s, $(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"
}

# ------------------------------------------------------------------------------------------- smoke
container=sluice-smoke-$$
# How long each awaited event may take (the machine may be shared by many builds).
deadline_s="${SLUICE_SMOKE_DEADLINE_S:-300}"
volume=sluice-smoke-data-$$
topic=sluice-smoke
series=500
samples=20000
work=""
broker_pid=""

cleanup() {
  podman rm -f "$container" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  if [ -n "$broker_pid" ] && kill -0 "$broker_pid" 2>/dev/null; then
    kill -TERM "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  [ -n "$work" ] && rm -rf "$work"
}

free_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  fail "no free port found"
}

# Polls "$@" every 0.2 s until it succeeds or $1 seconds passed. $2 names what is awaited.
await() {
  local seconds="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
  step "  $what"
}

container_running() { [ "$(podman inspect --format '{{.State.Running}}' "$container" 2>/dev/null)" = true ]; }
broker_ready() {
  kill -0 "$broker_pid" 2>/dev/null || fail "the broker exited: $(tail -n 5 "$work/broker.log")"
  grep -q '^bootstrap-servers: ' "$work/broker.log"
}
ready() {
  container_running || fail "the container exited: $(podman logs --tail 5 "$container" 2>&1)"
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$http/-/ready")" = 200 ]
}
metric() { curl -fsS "$http/metrics" | awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $NF } END { print s + 0 }'; }
all_stored() { [ "$(metric sluice_samples_appended_total)" = "$samples" ]; }

smoke_test() {
  work="$(mktemp -d /tmp/sluice-smoke.XXXXXX)"
  trap cleanup EXIT

  step "smoke: compose file and Prometheus configuration parse"
  "$python" "$root/docker/check-compose.py" "$root/docker/compose.yaml" "$root/docker/prometheus.yml" \
    || fail "docker/compose.yaml or docker/prometheus.yml is not valid"

  # The host's sluice.jar runs the broker and loadgen; ./sluice first rebuilds it if a source is newer
  # (minutes), which must not eat into the broker's start deadline. In CI ./mvnw verify just built it.
  step "smoke: the server jar on the host (./sluice rebuilds it when a source is newer)"
  "$root/sluice" --version > "$work/jar.log" 2>&1 || fail "cannot build or run the host's sluice.jar: $(tail -n 3 "$work/jar.log")"
  step "smoke: Kafka broker on the host (sluice broker, topic $topic with 2 partitions)"
  : > "$work/broker.log" # exists before the first poll reads it
  "$root/sluice" broker --topic "$topic:2" >> "$work/broker.log" 2>&1 &
  broker_pid=$!
  await "$deadline_s" "broker serves" broker_ready || fail "the broker did not serve within $deadline_s s"
  local bootstrap
  bootstrap="$(sed -n 's/^bootstrap-servers: //p' "$work/broker.log" | head -n 1)"

  # The mounted YAML sets 2 shards; the environment overrides the file's port and host and adds Kafka.
  local port
  port="$(free_port)"
  http="http://127.0.0.1:$port"
  printf 'data.dir: /var/lib/sluice\nhead.shards: 2\nwal.segment-size: 1MiB\nhttp.port: 1\n' > "$work/sluice.yaml"
  chmod 644 "$work/sluice.yaml"
  step "smoke: podman run $image (host network, HTTP on $port, broker $bootstrap, 768 MB memory limit)"
  # --health-interval=disable: no systemd here to time the checks (podman still logs that it has none);
  # `podman healthcheck run` runs one on demand.
  podman run -d --name "$container" --network host --memory 768m --health-interval=disable \
    -v "$work/sluice.yaml:/etc/sluice/sluice.yaml:ro" -v "$volume:/var/lib/sluice" \
    -e SLUICE_HTTP_HOST=127.0.0.1 -e SLUICE_HTTP_PORT="$port" \
    -e SLUICE_KAFKA_BOOTSTRAP_SERVERS="$bootstrap" -e SLUICE_KAFKA_TOPICS="$topic=sluice" \
    -e SLUICE_KAFKA_GROUP_ID="$container" "$image" > "$work/run.log" 2>&1 || fail "podman run failed: $(tail -n 3 "$work/run.log")"
  await "$deadline_s" "/-/ready answers 200" ready || fail "not ready within $deadline_s s: $(curl -s "$http/-/ready")"

  podman healthcheck run "$container" >/dev/null || fail "the image's HEALTHCHECK does not pass while ready"
  step "  HEALTHCHECK passes"
  [ "$(podman exec "$container" id -u)" = 10001 ] || fail "the server does not run as uid 10001"
  step "  runs as uid 10001"
  local scrape
  scrape="$(curl -fsS "$http/metrics")" || fail "GET /metrics failed"
  grep -q '^sluice_' <<<"$scrape" || fail "/metrics has no sluice_ metric"
  grep -q 'shard="1"' <<<"$scrape" || fail "/metrics shows no shard 1: the mounted YAML (head.shards: 2) was not read"
  step "  /metrics has sluice_ metrics and both shards of the mounted YAML"
  local heap_max
  # The heap's pools (-1 = no own limit); their limits add up to about the max heap.
  heap_max="$(awk '/^jvm_memory_max_bytes\{/ && /area="heap"/ && $NF > 0 { m += $NF } END { printf "%d\n", m }' <<<"$scrape")"
  awk -v h="$heap_max" 'BEGIN { exit !(h > 0 && h <= 768 * 1048576 * 0.5) }' \
    || fail "max heap $heap_max B does not follow the 768 MB limit (MaxRAMPercentage)"
  step "  max heap $((heap_max / 1048576)) MiB under a 768 MB limit"
  check_aot_cache

  step "smoke: sluice loadgen on the host: $samples samples of $series series"
  "$root/sluice" loadgen --bootstrap-servers "$bootstrap" --topic "$topic" --format sluice \
    --series "$series" --samples "$samples" > "$work/loadgen.log" 2>&1 || fail "loadgen failed: $(tail -n 3 "$work/loadgen.log")"
  await "$deadline_s" "all $samples samples stored (sluice_samples_appended_total)" all_stored \
    || fail "stored $(metric sluice_samples_appended_total) of $samples samples within $deadline_s s"
  check_query_api

  step "smoke: podman stop (SIGTERM to the JVM, PID 1)"
  podman stop -t 60 "$container" > "$work/stop.log" 2>&1 || fail "podman stop failed: $(tail -n 3 "$work/stop.log")"
  local code logs
  code="$(podman inspect --format '{{.State.ExitCode}}' "$container")"
  logs="$(podman logs "$container" 2>&1)"
  [ "$code" = 0 ] || [ "$code" = 143 ] || fail "exit code $code after SIGTERM: $(tail -n 5 <<<"$logs")"
  grep -q 'SIGTERM: stopping' <<<"$logs" || fail "no 'SIGTERM: stopping' in the log: the JVM did not get the signal"
  grep -q 'stopped in [0-9]* ms' <<<"$logs" || fail "no 'stopped in N ms' in the log: no graceful stop"
  step "  exit code $code, log: '$(grep -o 'stopped in [0-9]* ms' <<<"$logs")'"

  step "smoke: wal inspect of the volume in a fresh container"
  local inspect
  inspect="$(podman run --rm --no-healthcheck -v "$volume:/var/lib/sluice" "$image" wal inspect /var/lib/sluice 2>&1)" \
    || fail "wal inspect of the volume failed: $(tail -n 5 <<<"$inspect")"
  grep -Eq "^ +$topic/[01] +[0-9]+" <<<"$inspect" && grep -q 'corruption: none' <<<"$inspect" \
    || fail "the WALs on the volume hold no offset watermark of $topic: $inspect"
  step "  the WALs on the volume are intact and hold the offset watermarks of $topic"

  step "smoke: podman start again: the checkpoint and WALs on the volume load"
  podman start "$container" > "$work/start.log" 2>&1 || fail "podman start failed: $(tail -n 3 "$work/start.log")"
  await "$deadline_s" "/-/ready answers 200 after the restart" ready || fail "not ready within $deadline_s s after the restart"
  local loaded active
  # The graceful stop checkpointed: samples come back from the checkpoint (restore) and the WAL after it (replay).
  loaded=$(( $(metric sluice_replay_samples_total) + $(metric sluice_restore_samples_total) ))
  active="$(metric sluice_series_active)"
  [ "$loaded" = "$samples" ] && [ "$active" = "$series" ] \
    || fail "after the restart: loaded $loaded of $samples samples, $active of $series series"
  step "  loaded all $samples samples of $series series from the volume (checkpoint + WAL)"
  check_query_api
  podman stop -t 60 "$container" > "$work/stop.log" 2>&1 || fail "podman stop failed: $(tail -n 3 "$work/stop.log")"
}

# The image's JDK AOT cache (trained in the build's "aot" stage) is used: the server says so in its log
# and its gauge, and the JVM loads Sluice's own classes from it ("source: shared objects file" in
# -Xlog:class+load, which JAVA_TOOL_OPTIONS adds without changing what the cache depends on).
check_aot_cache() {
  local logs # not `podman logs | grep -q`: grep's early exit fails the pipeline (pipefail)
  logs="$(podman logs "$container" 2>&1)"
  grep -q 'JVM AOT cache /opt/sluice/sluice.aot in use' <<<"$logs" \
    || fail "the server does not log 'JVM AOT cache /opt/sluice/sluice.aot in use': $(grep -i aot <<<"$logs" | head -n 3)"
  [ "$(metric sluice_jvm_aot_cache_in_use)" = 1 ] || fail "sluice_jvm_aot_cache_in_use is not 1"
  local shared
  shared="$(podman run --rm --no-healthcheck -e JAVA_TOOL_OPTIONS=-Xlog:class+load=info "$image" --version 2>&1 \
    | grep -c '^\[.*\] io\.sluice\..* source: shared objects file')" || true
  [ "${shared:-0}" -gt 0 ] || fail "no io.sluice class loaded from the AOT cache (-Xlog:class+load)"
  step "  AOT cache in use: logged, sluice_jvm_aot_cache_in_use 1, $shared io.sluice classes of --version from it"
  # A cache the JVM refuses (a flag it depends on) is reported, and never stops the JVM.
  local refused
  refused="$(podman run --rm --no-healthcheck -e JAVA_TOOL_OPTIONS=-XX:+UseCompactObjectHeaders "$image" --version 2>&1)" \
    || fail "the JVM did not start with a refused AOT cache: $(tail -n 3 <<<"$refused")"
  grep -q 'Unable to use AOT cache' <<<"$refused" || fail "a refused AOT cache is not reported: $(head -n 3 <<<"$refused")"
  # A jar newer than the cache (one mounted over the image's) starts without it: the JDK would run the old classes.
  refused="$(podman run --rm --no-healthcheck --user 0 --entrypoint bash "$image" \
    -c 'touch /opt/sluice/sluice.jar && /opt/sluice/java.sh --version' 2>&1)" \
    || fail "the JVM did not start with a jar newer than the AOT cache: $(tail -n 3 <<<"$refused")"
  grep -q 'starting without the AOT cache' <<<"$refused" || fail "a jar newer than the AOT cache still starts from it"
  step "  a refused AOT cache is reported ([warning][aot]), a jar newer than the cache starts without it"
}

# Samples queryable through the HTTP API: /api/v1/series lists every series, /api/v1/export returns
# every sample (JSON lines, one series a line), and so does /api/v1/read (remote-read.py). A build without the query API answers 404: then the
# stored-samples counter above is all there is to check.
check_query_api() {
  local code
  code="$(curl -s -o "$work/series.json" -w '%{http_code}' -G "$http/api/v1/series" \
    --data-urlencode 'match[]={__name__=~".+"}')"
  if [ "$code" = 404 ]; then
    step "  (no /api/v1/series in this build: checked the stored-samples counter only)"
    return
  fi
  [ "$code" = 200 ] || fail "GET /api/v1/series answered $code: $(head -c 300 "$work/series.json")"
  local count
  count="$("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["data"]))' "$work/series.json")"
  [ "$count" = "$series" ] || fail "GET /api/v1/series returned $count series, expected $series"
  step "  GET /api/v1/series returns all $series series"
  code="$(curl -s -o "$work/export.jsonl" -w '%{http_code}' -G "$http/api/v1/export" \
    --data-urlencode 'match[]={__name__=~".+"}')"
  [ "$code" = 200 ] || fail "GET /api/v1/export answered $code: $(head -c 300 "$work/export.jsonl")"
  count="$("$python" -c '
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
print(len(lines), sum(len(s["timestamps"]) for s in lines))' "$work/export.jsonl")"
  [ "$count" = "$series $samples" ] || fail "GET /api/v1/export returned (series samples) $count, expected $series $samples"
  step "  GET /api/v1/export returns all $samples samples of $series series"
  count="$("$python" "$root/docker/remote-read.py" "$http")" || fail "POST /api/v1/read (remote read) failed"
  [ "$count" = "$series $samples" ] || fail "POST /api/v1/read returned (series samples) $count, expected $series $samples"
  step "  POST /api/v1/read (Prometheus remote-read, as compose's Prometheus asks) returns all $samples samples"
}

# ------------------------------------------------------------------------------------------- main
"$jdk/bin/java" -version 2>&1 | grep -q 'version "25' && [ -x "$jdk/bin/jlink" ] \
  || fail "no JDK 25 with jlink at $jdk (set SLUICE_JDK)"
install_tools
configure_podman
base_image
build_jdk_image
build_jre_image
build_sluice_image
if [ "$smoke" = 1 ]; then
  smoke_test
fi
step "done in $((SECONDS - started)) s"
