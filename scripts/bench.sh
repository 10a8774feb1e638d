#!/usr/bin/env bash
# Performance figures: Go benchmarks of the hot paths, and the whole-process
# time of the main listing (median of N runs of the built binary).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-50}

echo "== Go benchmarks"
go test -run '^$' -bench . -benchmem ./internal/catalog/

echo
echo "== whole process: gpuscout offers --gpu A100:8 (median of $N runs)"
bin=$(mktemp -d)/gpuscout
CGO_ENABLED=0 go build -o "$bin" ./cmd/gpuscout
"$bin" offers --gpu A100:8 >/dev/null # warm the page cache
times=()
for _ in $(seq "$N"); do
  s=$(date +%s%N)
  "$bin" offers --gpu A100:8 >/dev/null
  e=$(date +%s%N)
  times+=($(( (e - s) / 1000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$(( N / 2 ))]}
p90=${sorted[$(( N * 9 / 10 ))]}
printf 'median %d.%03d ms, p90 %d.%03d ms, min %d.%03d ms (target: median <= 50 ms)\n' \
  $((median / 1000)) $((median % 1000)) $((p90 / 1000)) $((p90 % 1000)) $((sorted[0] / 1000)) $((sorted[0] % 1000))
ls -l "$bin" | awk '{printf "binary size %.1f MiB\n", $5/1048576}'
