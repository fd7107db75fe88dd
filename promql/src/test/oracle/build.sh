#!/usr/bin/env bash
# Builds the reference Prometheus binaries the tests run against (cmd/prometheus and cmd/promtool of
# Prometheus v3, Go module github.com/prometheus/prometheus v0.314.0, the version whose packages
# benchmarks/anchors/prometheus/go.mod already pins), from the Go module proxy, into a cache outside
# the repository; reuses binaries already there. Prints the cache directory on its last line of stdout.
#
#   promql/src/test/oracle/build.sh        # -> ${SLUICE_CACHE:-$HOME/.cache/sluice}/prometheus-v0.314.0/{prometheus,promtool}
#
# The build runs in the downloaded module's own directory, so it uses exactly Prometheus' go.mod and
# go.sum; nothing is written into the repository. The first build takes several minutes on two cores.
# Without a Go toolchain it fails with one line on stderr (exit 2); the tests that need the binaries
# fail with that line, they are never skipped.
set -euo pipefail

version="${PROMETHEUS_MODULE_VERSION:-$(sed -n 's/^[[:space:]]*github.com\/prometheus\/prometheus \(v[^ ]*\).*/\1/p' \
  "$(dirname "$0")/../../../../benchmarks/anchors/prometheus/go.mod" | head -1)}"
cache="${SLUICE_CACHE:-$HOME/.cache/sluice}/prometheus-${version}"

if [[ -x "$cache/prometheus" && -x "$cache/promtool" ]]; then
  echo "$cache"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "prometheus build: no Go toolchain on PATH (need go >= 1.26 to build github.com/prometheus/prometheus ${version}; install Go or put built prometheus and promtool in ${cache})" >&2
  exit 2
fi

mkdir -p "$cache"
export GOFLAGS="${GOFLAGS:-} -mod=readonly -buildvcs=false"
export GOWORK=off # the module ships a go.work naming directories its zip leaves out
echo "prometheus build: downloading github.com/prometheus/prometheus@${version}" >&2
dir="$(go mod download -json "github.com/prometheus/prometheus@${version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [[ -z "$dir" || ! -f "$dir/go.mod" ]]; then
  echo "prometheus build: go mod download github.com/prometheus/prometheus@${version} failed (see the output above)" >&2
  exit 1
fi
for cmd in promtool prometheus; do
  if [[ ! -x "$cache/$cmd" ]]; then
    echo "prometheus build: building ${dir}/cmd/${cmd} (minutes on two cores)" >&2
    tmp="$cache/$cmd.tmp.$$"
    (cd "$dir" && go build -o "$tmp" "./cmd/$cmd")
    mv -f "$tmp" "$cache/$cmd"
  fi
done
echo "$cache"
