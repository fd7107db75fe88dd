#!/usr/bin/env bash
# Builds the Thanos binary (cmd/thanos) the Thanos Querier tests run, from the Go module proxy, into a
# cache outside the repository; reuses the binary when it is already there. Prints the binary's path
# on its last line of stdout.
#
#   src/test/thanos/build.sh                 # -> ${SLUICE_CACHE:-$HOME/.cache/sluice}/thanos-v0.42.4/thanos
#   THANOS_VERSION=v0.42.x src/test/thanos/build.sh
#
# The build runs in the downloaded module's own directory, so it uses exactly the dependency versions
# (and the replace directives) of Thanos' go.mod and go.sum, with the build tags of Thanos' release
# build; nothing is fetched into the repository.
# The first build takes 10-20 minutes on two cores; run it niced if the machine is shared:
#   nice -n 19 src/test/thanos/build.sh > /tmp/thanos-build.log 2>&1 &
set -euo pipefail

version="${THANOS_VERSION:-v0.42.4}"
cache="${SLUICE_CACHE:-$HOME/.cache/sluice}/thanos-${version}"
bin="$cache/thanos"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "thanos build: no Go toolchain on PATH (need go >= 1.26 to build github.com/thanos-io/thanos ${version}; install Go or put a built thanos at ${bin})" >&2
  exit 2
fi

mkdir -p "$cache"
export GOFLAGS="${GOFLAGS:-} -mod=readonly -buildvcs=false"
echo "thanos build: downloading github.com/thanos-io/thanos@${version}" >&2
dir="$(go mod download -json "github.com/thanos-io/thanos@${version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [[ -z "$dir" || ! -f "$dir/go.mod" ]]; then
  echo "thanos build: go mod download github.com/thanos-io/thanos@${version} failed (see the output above)" >&2
  exit 1
fi
echo "thanos build: building ${dir}/cmd/thanos (minutes on two cores)" >&2
tmp="$cache/thanos.tmp.$$"
# The tags of Thanos' own release build (.promu.yml): its label code assumes Prometheus' slice labels.
(cd "$dir" && go build -trimpath -tags netgo,slicelabels \
  -ldflags "-s -w -X github.com/prometheus/common/version.Version=${version#v} -X github.com/prometheus/common/version.Branch=release" \
  -o "$tmp" ./cmd/thanos)
mv -f "$tmp" "$bin"
"$bin" --version >&2
echo "$bin"
