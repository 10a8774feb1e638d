#!/usr/bin/env bash
# Performance figures: Go benchmarks of the hot paths, and the whole-process
# time of the main listing (median of N runs of the built binary).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-50}

echo "== Go benchmarks"
go test -run '^$' -bench . -benchmem ./internal/catalog/ ./internal/cost/
go test -run '^$' -bench . -benchtime 3x ./internal/spot/ ./internal/advise/
go test -run '^$' -bench AdviseREADME -benchtime 3x ./internal/cli/
# The stores' durable puts/s (the PostgreSQL one skips without PostgreSQL 15).
go test -run '^$' -bench PutDocument -benchtime 2s ./internal/store/sqlite/ ./internal/store/postgres/
# The server: pages read while uploads arrive (reads/s, uploads/s and the
# reads' p99), and a compare of eight distinct reports against one id eight
# times (refused before any report is read).
go test -run '^$' -bench 'ReadsUnderUploads|Compare' -benchtime 1s ./internal/server/

bin=$(mktemp -d)/gpuscout
CGO_ENABLED=0 go build -o "$bin" ./cmd/gpuscout

# Start-up against a static Go hello-world built here, now (issue 24's
# targets: version <= 2x, gpus <= 3x, offers --gpu A100:8 <= 4x). The
# commands run in rounds, one run of each per round, so that a machine
# shared with other work slows them alike; each figure is the median of N,
# timed around fork, exec and wait by scripts/startup (no shell or timer
# process inside the figure).
hello_dir=$(mktemp -d)
printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hi\\n") }\n' >"$hello_dir/main.go"
printf 'module hello\n\ngo 1.26\n' >"$hello_dir/go.mod"
(cd "$hello_dir" && CGO_ENABLED=0 go build -o hello .)
go build -o "$hello_dir/startup" ./scripts/startup
# The libraries' floor: a hello-world linking what the design's one binary
# links (purego, the Prometheus client, the SQLite and PostgreSQL drivers,
# cobra, decimal, YAML; scripts/startup/floor): their initialisation and
# purego's dynamic linking run before any main, so no command starts faster.
CGO_ENABLED=0 go build -o "$hello_dir/floor" ./scripts/startup/floor
echo
echo "== start-up against a static hello-world (median of $N interleaved runs)"
lora="advise --scenario llm-finetuning --model llama-3-70b --method lora --tokens 2e9 --deadline 10d --budget 20000USD"
"$hello_dir/startup" -n "$N" -hello "$hello_dir/hello" -floor "$hello_dir/floor" -bin "$bin" \
  version gpus "offers --gpu A100:8" "$lora" | tee "$hello_dir/startup.txt"
# Issue 24: the README's LoRA advise, whole process, at most 4x offers.
awk '$1 == "offers" { o = $(NF-3) } $1 == "advise" { a = $(NF-3) }
  END { printf "advise (the README LoRA example) / offers --gpu A100:8: %.1fx (target <= 4x)\n", a / o }' "$hello_dir/startup.txt"
# Package initialisation, which every command pays before main: the sum
# of GODEBUG=inittrace=1's clock times and the packages that take longest
# (medians of 5 runs of version; the sum sorts first).
for r in 1 2 3 4 5; do
  GODEBUG=inittrace=1 "$bin" version 2>&1 >/dev/null | awk -v r="$r" '/^init / { print r, $2, $5 }'
done | awk '
  function median(s,   v, n, i, j, t) {
    n = split(s, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
    return v[int((n + 1) / 2)]
  }
  { vals[$2] = vals[$2] " " $3; sum[$1] += $3 }
  END { for (r in sum) all = all " " sum[r]; print median(all), "(all)"; for (k in vals) print median(vals[k]), k }' |
  sort -rn | head -6 | awk 'NR == 1 { printf "package init: %.2f ms; longest:", $1; next } { printf " %s %s ms", $2, $1 } END { print "" }'

# whole TARGET_MS ARGS...: median of N runs of the built binary.
whole() {
  local target=$1; shift
  echo
  echo "== whole process: gpuscout $* (median of $N runs, target <= $target ms)"
  "$bin" "$@" >/dev/null # warm the page cache
  local times=() s e
  for _ in $(seq "$N"); do
    s=$(date +%s%N)
    "$bin" "$@" >/dev/null
    e=$(date +%s%N)
    times+=($(( (e - s) / 1000 )))
  done
  local sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  local median=${sorted[$(( N / 2 ))]} p90=${sorted[$(( N * 9 / 10 ))]}
  printf 'median %d.%03d ms, p90 %d.%03d ms, min %d.%03d ms\n' \
    $((median / 1000)) $((median % 1000)) $((p90 / 1000)) $((p90 % 1000)) $((sorted[0] / 1000)) $((sorted[0] % 1000))
}
whole 50 offers --gpu A100:8
whole 50 advise --scenario cv-training --gpu A100:4 --for 7d --no-spot
# Every README advise example within 300 ms (issue 23); the Go benchmark
# BenchmarkAdviseREADME (internal/cli) runs the same list in-process.
whole 300 advise --scenario cv-training --gpu A100:4 --for 7d
whole 300 advise --scenario llm-pretraining --work 20000gpu-h@A100 --deadline 30d --budget 60000USD
whole 300 advise --scenario inference-online --hours-per-month 730 --china --currency CNY
whole 300 advise --scenario llm-finetuning --model llama-3-70b --method lora --tokens 2e9 --deadline 10d --budget 20000USD
whole 300 advise --scenario inference-online --model qwen2.5-72b --context 32k --concurrency 32 --hours-per-month 730
whole 300 advise --scenario llm-pretraining --model 8B --tokens 1e12 --deadline 30d
whole 300 advise --scenario llm-pretraining --model 70B --tokens 2e12
whole 100 cost --gpu A100:4 --for 7d
whole 100 cost --offering gcp/a2-highgpu-8g --hours-per-month 420 --horizon 3y --discount-rate 8%
if [ -d ../shared/data/spot-traces ]; then
  N=5 whole 10000 spot --work 48h --deadline 52h --trace ../shared/data/spot-traces --spot-price 0.918 --od-price 3.06 --policy all
fi
ls -l "$bin" | awk '{printf "\nbinary size %.1f MiB\n", $5/1048576}'
