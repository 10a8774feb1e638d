#!/usr/bin/env bash
# The whole test suite, in steps that can each be run alone:
#
#   scripts/test.sh                 every step, in this order (what make test and CI run)
#   scripts/test.sh install         the Debian packages the tests need (as root with apt-get; idempotent)
#   scripts/test.sh gofmt           formatting of every Go file
#   scripts/test.sh vet             go vet ./... (every analyzer; go-test and race also run them, package by package)
#   scripts/test.sh go-test         the tests of every package not in RACE_PKGS, built as the release is (CGO_ENABLED=0)
#   scripts/test.sh race            the tests of RACE_PKGS, the packages that start goroutines, under the race detector
#                                   (go-test vets them, in the release's configuration)
#   scripts/test.sh fuzz            every fuzz target (scripts/fuzzstep): fails only on a real finding
#   scripts/test.sh smoke           the CGO_ENABLED=0 binary runs; bad input exits 2
#   scripts/test.sh go-test fuzz    several steps, in the order given
#
# Environment:
#   FUZZTIME    inputs per fuzz target (default: scripts/fuzzstep's, 10000x) or a duration (make fuzz: 60s); 0 skips fuzzing
#   FUZZRUN     fuzz only targets whose ./dir:Name matches this regular expression
#   FUZZMINIMIZE  -fuzzminimizetime (default 0: a crasher is written as found)
#   FUZZ_TESTS  set (make test does, unless fuzzing is off): the fuzz step also runs the tests of the packages
#               it fuzzes, with the fuzz binaries, and go-test only vets them
#   GOTESTFLAGS flags and packages for the go-test step instead of its own (e.g. "-run TestX ./internal/spot")
#
# A step that is not `install` uses what is installed and skips (with a note)
# the tests whose tools are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-}
FUZZRUN=${FUZZRUN:-}
FUZZMINIMIZE=${FUZZMINIMIZE:-0}
export GOFLAGS=${GOFLAGS:-}
ALL_STEPS="install gofmt vet go-test race fuzz smoke"

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

steps=()
for arg in "$@"; do
  case "$arg" in
    all) steps+=($ALL_STEPS) ;;
    install | gofmt | vet | go-test | race | fuzz | smoke) steps+=("$arg") ;;
    -h | --help | help) usage; exit 0 ;;
    *) echo "test.sh: unknown step \"$arg\": want one or more of: all $ALL_STEPS" >&2; exit 2 ;;
  esac
done
[ ${#steps[@]} -gt 0 ] || steps=($ALL_STEPS)

need() { command -v "$1" >/dev/null 2>&1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
if ! need go; then
  echo "test.sh: Go is not installed (need Go 1.26+: https://go.dev/dl/)" >&2
  exit 1
fi

# --- install: what the tests need, idempotently ------------------------------------
# apt_install installs Debian packages when this is root on a Debian-like
# machine (CI); elsewhere it does nothing and the tests that need them skip.
apt_updated=
apt_install() {
  if [ "$(id -u)" = 0 ] && need apt-get; then
    [ -n "$apt_updated" ] || { apt-get update -qq || true; apt_updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || true
  fi
}
torch_ok() { /usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1; }
PG_BIN=${GPUSCOUT_PG_BIN:-/usr/lib/postgresql/15/bin}
step_install() {
  # The race detector and the fake GPU libraries need a C compiler.
  need gcc || apt_install gcc
  # The browser checks (internal/browsercheck) look at the report and charts in Debian's headless chromium.
  need chromium || apt_install chromium
  # The agent's rules and notifiers: promtool checks `rules export`, a real Alertmanager takes notify's alerts.
  need prometheus-alertmanager || apt_install prometheus prometheus-alertmanager prometheus-node-exporter
  # The bundled PyTorch workloads (internal/bench/workload) run for real on the CPU with Debian's torch 1.13.
  torch_ok || apt_install python3-torch python3-torchvision
  # The PostgreSQL store is tested against a server each test starts itself (initdb in a temp dir).
  [ -x "$PG_BIN/initdb" ] || apt_install postgresql
  # scripts/agent-bench.sh measures the agent beside node_exporter under wrk.
  need wrk || apt_install wrk
}

# --- what is here decides which tests must run rather than skip --------------------
RACE=-race
detect() {
  if ! need gcc; then
    echo "test.sh: gcc not found: running without the race detector" >&2
    RACE=
  fi
  if need chromium; then
    export GPUSCOUT_REQUIRE_BROWSER=1
    echo "test.sh: browser checks on; screenshots go to ${GPUSCOUT_ARTEFACTS:-artefacts}/browser/" >&2
  else
    echo "test.sh: chromium not found (scripts/test.sh install): the browser checks will skip" >&2
  fi
  if need promtool && need prometheus && need prometheus-alertmanager && need prometheus-node-exporter; then
    export GPUSCOUT_REQUIRE_PROMETHEUS=1
  else
    echo "test.sh: prometheus, promtool, alertmanager or node-exporter not found (scripts/test.sh install): their tests will skip" >&2
  fi
  if torch_ok; then
    # Debian's interpreter, which has the torch it installed (python3 on PATH may be another one, e.g. pyenv's).
    export GPUSCOUT_REQUIRE_TORCH=1 GPUSCOUT_PYTHON=/usr/bin/python3
  else
    echo "test.sh: python3-torch not found (scripts/test.sh install): the PyTorch workload tests will skip" >&2
  fi
  if [ -x "$PG_BIN/initdb" ]; then
    export GPUSCOUT_REQUIRE_POSTGRES=1
  else
    echo "test.sh: PostgreSQL 15 not found (scripts/test.sh install): the PostgreSQL store tests will skip" >&2
  fi
  if [ ! -d ../shared/data ] && [ -z "${GPUSCOUT_SHARED_DATA:-}" ]; then
    echo "test.sh: ../shared/data not found: tests that check prices against the source rows will skip" >&2
  fi
}

# --- the steps -----------------------------------------------------------------------
step_gofmt() {
  local unformatted
  # Files in the index or new; one deleted but not yet staged is skipped.
  unformatted=$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null |
    while read -r f; do [ ! -e "$f" ] || printf '%s\n' "$f"; done | xargs -r gofmt -l)
  if [ -n "$unformatted" ]; then
    echo "gofmt would change: $unformatted" >&2
    return 1
  fi
}

# The packages whose own code starts goroutines (internal/racelist_test.go
# fails when one is missing; the SQLite store runs the stores' concurrent
# conformance suite, storetest, under it too). Their tests run under
# the race detector; every other package's tests are single-goroutine logic
# (parsers, the cost engine, the CLI's outputs) that the detector slowed 3
# to 12 times and in which it can find nothing, so they run as the release
# is built. PKG:REGEXP runs only the tests REGEXP names under the detector
# (the spot simulator's parallel runs; its other tests are one goroutine's
# arithmetic, 5x slower under it), and the whole package in go-test.
RACE_PKGS="./internal/agent ./internal/agent/autostop ./internal/agent/notify ./internal/agent/rules
  ./internal/bench ./internal/bench/workload ./internal/cloudmeta ./internal/gpu/cuda ./internal/gpu/host
  ./internal/server ./internal/server/dashboard ./internal/store/sqlite ./internal/store/storetest
  ./internal/spot:^(TestSimulateManyParallel|TestSimulateManyBudgetParallel|TestProgress)$ ./scripts/fuzzstep"

# race_whole prints RACE_PKGS' patterns tested whole under the detector.
race_whole() { for p in $RACE_PKGS; do [[ $p == *:* ]] || echo "$p"; done; }

step_vet() { CGO_ENABLED=0 go vet ./...; }

# go test -vet=all runs every analyzer of go vet on the packages it tests
# (the default is a subset); eight packages at a time, because many test
# binaries mostly wait (on servers, Chromium, subprocesses); -ldflags=-w
# links the test binaries without DWARF (never debugged here), in some 40%
# less time.
step_go_test() {
  if [ -n "${GOTESTFLAGS:-}" ]; then
    # shellcheck disable=SC2086 # GOTESTFLAGS is a list of words
    CGO_ENABLED=0 go test -vet=all -ldflags=-w -p 8 -count=1 $GOTESTFLAGS
    return
  fi
  local plain vetonly
  # shellcheck disable=SC2046 # a list of patterns
  plain=$(go list ./... | grep -vxF -f <(go list $(race_whole)))
  vetonly=$(go list $(race_whole))
  if [ -n "${FUZZ_TESTS:-}" ]; then
    # The fuzz step runs these packages' tests with their fuzz binaries
    # (fuzzstep -tests): compiled and linked once, not twice.
    local fuzzed
    # shellcheck disable=SC2046
    fuzzed=$(go list $(CGO_ENABLED=0 go run ./scripts/fuzzstep -list .))
    plain=$(grep -vxF -f <(echo "$fuzzed") <<<"$plain")
    vetonly="$vetonly $fuzzed"
  fi
  # shellcheck disable=SC2086
  CGO_ENABLED=0 go test -vet=all -ldflags=-w -p 8 -count=1 $plain
  # The race step's packages (and the fuzz step's) are vetted here, in this
  # configuration: vet computes facts for every package they import (the
  # standard library, SQLite's 200,000 lines), once per configuration.
  # shellcheck disable=SC2086
  CGO_ENABLED=0 go vet $vetonly
}

step_race() {
  local p rc=0
  # shellcheck disable=SC2046 # a list of patterns
  go test $RACE -vet=off -ldflags=-w -p 8 -count=1 $(race_whole) || rc=1
  for p in $RACE_PKGS; do
    [[ $p == *:* ]] || continue
    go test $RACE -vet=off -ldflags=-w -count=1 -run "${p#*:}" "${p%%:*}" || rc=1
  done
  return "$rc"
}

step_fuzz() {
  if [ "$FUZZTIME" = 0 ]; then
    echo "FUZZTIME=0: fuzzing skipped"
    return 0
  fi
  local bin
  bin=$(mktemp -d)/fuzzstep
  CGO_ENABLED=0 go build -o "$bin" ./scripts/fuzzstep
  local skip=""
  if [ -n "${FUZZ_TESTS:-}" ]; then
    # shellcheck disable=SC2046
    skip=$(go list -f '{{.Dir}}' $(race_whole) | sed "s|^$PWD/|./|" | paste -sd, -)
  fi
  "$bin" ${FUZZTIME:+-budget "$FUZZTIME"} -minimize "$FUZZMINIMIZE" -jobs 2 ${FUZZRUN:+-run "$FUZZRUN"} ${FUZZ_TESTS:+-tests -skip-tests "$skip"} .
}

step_smoke() {
  local bin code
  bin=$(mktemp -d)/gpuscout
  CGO_ENABLED=0 go build -o "$bin" ./cmd/gpuscout
  "$bin" advise --scenario cv-training --gpu A100:4 --for 7d >/dev/null
  "$bin" offers --gpu A100:8 >/dev/null
  set +e
  "$bin" offers --provider nowhere >/dev/null 2>&1
  code=$?
  set -e
  if [ "$code" != 2 ]; then
    echo "smoke: bad provider exited $code, want 2" >&2
    return 1
  fi
  echo "ok  CGO_ENABLED=0 binary runs; bad input exits 2"
}

# --- run them --------------------------------------------------------------------------
# From here on errexit is off and every status is checked by hand: each step
# runs in a subshell with set -e of its own, never inside an `if`, `&&` or
# `||` (bash ignores -e in anything called from a condition).
set +e

# run_step STEP: one step; prints its time, and a rerun hint when it fails.
run_step() {
  local s=$1 start=$SECONDS rc
  (set -e; "step_${s//-/_}")
  rc=$?
  if [ "$rc" != 0 ]; then
    echo "test.sh: step \"$s\" failed after $((SECONDS - start)) s; rerun it alone with: scripts/test.sh $s" >&2
  else
    echo "-- $s: $((SECONDS - start)) s"
  fi
  return "$rc"
}

# run_lane STEP...: the steps one after another, each step's output kept in
# $logs/STEP.log and printed whole (under a lock, so two lanes never mix
# lines) when it ends; a failed step ends its lane.
run_lane() {
  local s rc
  for s in "$@"; do
    run_step "$s" >"$logs/$s.log" 2>&1
    rc=$?
    echo "$rc" >"$logs/$s.rc"
    flock "$logs/.lock" sh -c 'printf "\n== %s\n" "$1"; cat "$2"' _ "$s" "$logs/$s.log"
    [ "$rc" = 0 ] || return "$rc"
  done
}

export GORACE=${GORACE:-atexit_sleep_ms=0} # race binaries otherwise sleep 1 s at exit: a minute over the suite's binaries
if [ "$*" = "" ] || [ "$*" = all ]; then
  # Everything, in two lanes: race then go-test beside smoke then fuzz. The
  # test binaries leave much of the CPU idle (servers, Chromium, PostgreSQL,
  # processes they wait for); the builds fill it. Each lane starts in its
  # own configuration, so that no package is compiled twice at once: race
  # builds the race detector's packages, smoke the CGO_ENABLED=0 ones that
  # go-test and the fuzz binaries then reuse (scripts/fuzzstep instruments
  # only the package under test). The vet step is left out: go-test and race
  # run every analyzer on every package.
  run_lane install gofmt
  [ "$(cat "$logs/gofmt.rc" 2>/dev/null)" = 0 ] || exit 1
  detect
  # The fuzz step runs the tests of the packages it fuzzes (with the same
  # binaries), and go-test leaves them out; not when fuzzing is skipped.
  if [ "$FUZZTIME" != 0 ] && [ -z "$FUZZRUN" ]; then
    export FUZZ_TESTS=1
  fi
  run_lane race go-test &
  lane_a=$!
  run_lane smoke fuzz &
  lane_b=$!
  wait "$lane_a" "$lane_b"
  failed=()
  for s in install gofmt race go-test smoke fuzz; do
    rc=$(cat "$logs/$s.rc" 2>/dev/null || echo skipped)
    [ "$rc" = 0 ] || failed+=("$s ($rc)")
  done
  echo
  printf 'steps (two lanes):'
  for s in install gofmt race go-test smoke fuzz; do
    sed -n "s/^-- $s: \(.*\)/ $s \1;/p" "$logs/$s.log" 2>/dev/null | tr -d '\n'
  done
  echo
  if [ ${#failed[@]} -gt 0 ]; then
    echo "test.sh: failed or not run: ${failed[*]} (exit code, or skipped after an earlier failure in its lane); each step reruns alone: scripts/test.sh STEP" >&2
    exit 1
  fi
  echo "total ${SECONDS} s; all tests passed"
  exit 0
fi

# Named steps: one at a time, in the order given, stopping at the first failure.
for s in "${steps[@]}"; do
  if [ "$s" != install ] && [ -z "${detected:-}" ]; then
    detect
    detected=1
  fi
  printf '\n== %s\n' "$s"
  run_step "$s"
  [ $? = 0 ] || exit 1
done
echo
echo "total ${SECONDS} s; all tests passed"
