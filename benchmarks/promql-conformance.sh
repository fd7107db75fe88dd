#!/usr/bin/env bash
# PromQL conformance: runs Prometheus' own promqltest files through Sluice's script runner
# (io.sluice.promql.script.PromqlTestMain) and prints passed / failed / unsupported per file and the
# totals. The files come from the Go module proxy (`go mod download`, into the Go module cache); they
# are never copied into this repository. Unsupported: evals that need native histograms ({{...}} values,
# load_with_nhcb series) or start timestamps (@st lines), counted apart from failures.
#
#   benchmarks/promql-conformance.sh                 # every upstream file; stable float files marked *
#   benchmarks/promql-conformance.sh -v              # also print each failing eval
#   benchmarks/promql-conformance.sh functions.test  # only these files
# PROMETHEUS_VERSION (default v0.314.0) picks the upstream release; MVN_FLAGS is passed to ./mvnw
# (e.g. MVN_FLAGS=-o offline). Each file's full output is kept in benchmarks/results/promql-conformance/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source benchmarks/lib.sh

version="${PROMETHEUS_VERSION:-v0.314.0}"
verbose=false
only=()
for a in "$@"; do
  case "$a" in
    -v) verbose=true ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) only+=("$a") ;;
  esac
done

# The float files the goal names; every other upstream file is run and reported too.
stable="aggregators at_modifier collision functions histograms literals operators range_queries selectors staleness subquery trig_functions"

command -v go >/dev/null || { echo "go is not on PATH (needed to download Prometheus' test files)" >&2; exit 2; }
dir="$(cd /tmp && go mod download -json "github.com/prometheus/prometheus@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
testdata="$dir/promql/promqltest/testdata"
[ -d "$testdata" ] || { echo "no promqltest testdata in the module download ($testdata)" >&2; exit 2; }

read -r -a mvn_flags <<< "${MVN_FLAGS:-}"
./mvnw -B -q "${mvn_flags[@]}" -pl promql package -DskipTests
cpfile="$root/promql/target/conformance.classpath"
./mvnw -B -q "${mvn_flags[@]}" -pl promql dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$cpfile" >/dev/null
jar="$(ls promql/target/sluice-promql-*.jar | grep -v -e sources -e tests | head -1)"
cp="$jar:$(cat "$cpfile")"

out="benchmarks/results/promql-conformance"
mkdir -p "$out"
if [ ${#only[@]} -gt 0 ]; then
  files=()
  for f in "${only[@]}"; do files+=("$testdata/$(basename "$f")"); done
else
  files=("$testdata"/*.test)
fi

printf '%-28s %7s %7s %12s\n' "file (* stable float)" passed failed unsupported
tp=0; tf=0; tu=0; sp=0; sf=0; su=0
for f in "${files[@]}"; do
  name="$(basename "$f" .test)"
  log="$out/$name.out"
  "$JAVA" -cp "$cp" io.sluice.promql.script.PromqlTestMain "$f" > "$log" 2>&1 || true
  last="$(tail -1 "$log")"
  if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ unsupported)?$ ]]; then
    p="${BASH_REMATCH[1]}"; fl="${BASH_REMATCH[2]}"; u="${BASH_REMATCH[4]:-0}"
  else
    p=0; fl="?"; u=0
    echo "  $name: the runner did not finish; see $log" >&2
  fi
  mark=" "
  if [[ " $stable " == *" $name "* ]]; then mark="*"; fi
  printf '%-28s %7s %7s %12s\n' "$mark $name" "$p" "$fl" "$u"
  if [ "$fl" != "?" ]; then
    tp=$((tp + p)); tf=$((tf + fl)); tu=$((tu + u))
    if [ "$mark" = "*" ]; then sp=$((sp + p)); sf=$((sf + fl)); su=$((su + u)); fi
  fi
  if $verbose && [ "$fl" != "0" ]; then sed '$d' "$log" | sed 's/^/    /'; fi
done
printf '%-28s %7s %7s %12s\n' "stable float files" "$sp" "$sf" "$su"
printf '%-28s %7s %7s %12s\n' "all files" "$tp" "$tf" "$tu"
echo "Prometheus $version test files from $testdata; outputs in $out/"
