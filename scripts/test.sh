#!/usr/bin/env bash
# The whole test suite: formatting, vet, unit and integration tests (race
# detector on), short fuzz runs of every parser, and a smoke test of the
# built binary's exit codes. Installs what the tests need, idempotently.
# Usage: scripts/test.sh            (FUZZTIME=3s by default; FUZZTIME=0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-3s}
# Minimising a newly interesting input can outlast a 3 s run and fail it with
# "context deadline exceeded"; short runs skip it (a crasher is still written
# to testdata), `make fuzz` minimises.
FUZZMINIMIZE=${FUZZMINIMIZE:-0}
export GOFLAGS=${GOFLAGS:-}

need() { command -v "$1" >/dev/null 2>&1; }

# --- what the tests need ---------------------------------------------------------
if ! need go; then
  echo "test.sh: Go is not installed (need Go 1.26+: https://go.dev/dl/)" >&2
  exit 1
fi
# The race detector needs a C compiler; without one the suite runs without -race.
RACE=-race
if ! need gcc; then
  if [ "$(id -u)" = 0 ] && need apt-get; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc >/dev/null
  else
    echo "test.sh: gcc not found and not root: running without the race detector" >&2
    RACE=
  fi
fi
# apt_install installs Debian packages when this is root on a Debian-like
# machine (CI); elsewhere it does nothing and the tests that need them skip.
apt_updated=
apt_install() {
  if [ "$(id -u)" = 0 ] && need apt-get; then
    [ -n "$apt_updated" ] || { apt-get update -qq || true; apt_updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || true
  fi
}
# The browser checks (internal/browsercheck) look at the report and charts in
# Debian's headless chromium; once it is here they must run, not skip.
need chromium || apt_install chromium
if need chromium; then
  export GPUSCOUT_REQUIRE_BROWSER=1
  echo "test.sh: browser checks on; screenshots go to ${GPUSCOUT_ARTEFACTS:-artefacts}/browser/" >&2
else
  echo "test.sh: chromium not found and not installable here (not root or no apt-get): the browser checks will skip" >&2
fi
# The agent's rules and notifiers: promtool checks `rules export` and its tests,
# a real Alertmanager takes notify's alerts; once all are here they must run, not skip.
need prometheus-alertmanager || apt_install prometheus prometheus-alertmanager prometheus-node-exporter
if need promtool && need prometheus && need prometheus-alertmanager && need prometheus-node-exporter; then export GPUSCOUT_REQUIRE_PROMETHEUS=1; fi
# The bundled PyTorch workloads (internal/bench/workload) run for real on the
# CPU with Debian's torch 1.13; once it is here they must run, not skip.
torch_ok() { /usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1; }
torch_ok || apt_install python3-torch python3-torchvision
if torch_ok; then
  # Debian's interpreter, which has the torch it installed (python3 on PATH
  # may be another one, e.g. pyenv's).
  export GPUSCOUT_REQUIRE_TORCH=1 GPUSCOUT_PYTHON=/usr/bin/python3
else
  echo "test.sh: python3-torch not found and not installable here: the PyTorch workload tests will skip" >&2
fi
# The PostgreSQL store (internal/store/postgres) is tested against a server
# the test starts itself (initdb in a temp dir, never the system cluster);
# once Debian's PostgreSQL 15 is here those tests must run, not skip.
PG_BIN=${GPUSCOUT_PG_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$PG_BIN/initdb" ] || apt_install postgresql
if [ -x "$PG_BIN/initdb" ]; then
  export GPUSCOUT_REQUIRE_POSTGRES=1
else
  echo "test.sh: PostgreSQL 15 not found and not installable here: the PostgreSQL store tests will skip" >&2
fi
if [ ! -d ../shared/data ] && [ -z "${GPUSCOUT_SHARED_DATA:-}" ]; then
  echo "test.sh: ../shared/data not found: tests that check prices against the source rows will skip" >&2
fi
# scripts/agent-bench.sh measures the agent beside node_exporter under wrk (the
# Prometheus integration test of internal/cli uses the prometheus installed above).
need wrk || apt_install wrk

step() { printf '\n== %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi

step "go vet"
go vet ./...

step "go test"
go test $RACE -count=1 ./...

if [ "$FUZZTIME" != "0" ]; then
  step "fuzz ($FUZZTIME each)"
  # Every fuzz target in the tree, found by name, so a new parser's target runs
  # without anyone remembering to list it here.
  targets=$(grep -rl --include='*_test.go' '^func Fuzz' internal | sort | while read -r f; do
    for fn in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
      echo "./$(dirname "$f"):$fn"
    done
  done)
  # Two targets at a time, one fuzzing worker each: the same CPU as one
  # target with two workers, but one target's build overlaps the other's run.
  fuzz_one() {
    local pkg=${1%%:*} fn=${1##*:} log
    log=$(mktemp)
    if ! go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" -parallel 1 "$pkg" >"$log" 2>&1; then
      cat "$log" >&2
      echo "FAIL $pkg $fn" >&2
      rm -f "$log"
      return 1
    fi
    rm -f "$log"
    echo "ok  $pkg $fn"
  }
  export -f fuzz_one
  export FUZZTIME FUZZMINIMIZE
  if ! printf '%s\n' $targets | xargs -P 2 -I{} bash -c 'fuzz_one "$@"' _ {}; then
    echo "fuzzing found a failure (above)" >&2
    exit 1
  fi
fi

step "smoke test of the binary"
bin=$(mktemp -d)/gpuscout
CGO_ENABLED=0 go build -o "$bin" ./cmd/gpuscout
"$bin" advise --scenario cv-training --gpu A100:4 --for 7d >/dev/null
"$bin" offers --gpu A100:8 >/dev/null
set +e
"$bin" offers --provider nowhere >/dev/null 2>&1; code=$?
set -e
if [ "$code" != 2 ]; then echo "smoke: bad provider exited $code, want 2" >&2; exit 1; fi
echo "ok  CGO_ENABLED=0 binary runs; bad input exits 2"

echo
echo "all tests passed"
