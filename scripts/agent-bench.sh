#!/usr/bin/env bash
# agent-bench.sh measures `gpuscout agent --fake-gpus 8` (sampled every
# second) beside Debian's prometheus-node-exporter, in the same run:
#   1. idle phase (IDLE_SECONDS, default 300): both serve, one scrape each
#      every 15 s (Prometheus's default); CPU as % of one core over the phase
#      (from /proc/PID/stat), RSS every second (max and last, from
#      /proc/PID/status);
#   2. load phase (LOAD_SECONDS, default 60): wrk scrapes each one at about
#      20 requests a second (one connection, 50 ms between requests), giving
#      the latency percentiles, and CPU over the phase.
# Needs: go, wrk, prometheus-node-exporter, curl (apt-get install -y wrk
# prometheus-node-exporter curl). Writes a summary table to stdout and the
# raw numbers to ${OUT:-artefacts/agent-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
IDLE_SECONDS=${IDLE_SECONDS:-300}
LOAD_SECONDS=${LOAD_SECONDS:-60}
GPUS=${GPUS:-8}
OUT=${OUT:-artefacts/agent-bench}
mkdir -p "$OUT"
for t in wrk prometheus-node-exporter curl; do
  command -v "$t" >/dev/null || { echo "agent-bench: $t not found (apt-get install -y wrk prometheus-node-exporter curl)" >&2; exit 2; }
done
bin=$(mktemp -d)/gpuscout
go build -o "$bin" ./cmd/gpuscout
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
AP=$(port); NP=$(port)
"$bin" agent --fake-gpus "$GPUS" --interval 1s --listen "127.0.0.1:$AP" 2>"$OUT/agent.log" &
APID=$!
prometheus-node-exporter --web.listen-address="127.0.0.1:$NP" --log.level=warn 2>"$OUT/node-exporter.log" &
NPID=$!
trap 'kill $APID $NPID 2>/dev/null || true' EXIT
for i in $(seq 50); do
  curl -sf "http://127.0.0.1:$AP/metrics" >/dev/null && curl -sf "http://127.0.0.1:$NP/metrics" >/dev/null && break
  sleep 0.2
done
HZ=$(getconf CLK_TCK)
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/{print $2}' "/proc/$1/status"; }
series() { curl -s "http://127.0.0.1:$1/metrics" | grep -vc '^#'; }

# phase: NAME SECONDS SCRAPE_EVERY(0 = wrk)
phase() {
  local name=$1 secs=$2 every=$3
  local a0 n0 t0 amax=0 nmax=0 alast nlast
  a0=$(ticks $APID); n0=$(ticks $NPID); t0=$(date +%s.%N)
  if [ "$every" = 0 ]; then
    cat >"$OUT/pace.lua" <<'LUA'
function delay() return 50 end
LUA
    wrk -t1 -c1 -d"${secs}s" --latency -s "$OUT/pace.lua" "http://127.0.0.1:$AP/metrics" >"$OUT/wrk-agent.txt" &
    local w1=$!
    wrk -t1 -c1 -d"${secs}s" --latency -s "$OUT/pace.lua" "http://127.0.0.1:$NP/metrics" >"$OUT/wrk-node-exporter.txt" &
    local w2=$!
  fi
  for s in $(seq "$secs"); do
    if [ "$every" != 0 ] && [ $((s % every)) = 1 ]; then
      curl -s "http://127.0.0.1:$AP/metrics" >/dev/null; curl -s "http://127.0.0.1:$NP/metrics" >/dev/null
    fi
    alast=$(rss_kib $APID); nlast=$(rss_kib $NPID)
    [ "$alast" -gt "$amax" ] && amax=$alast
    [ "$nlast" -gt "$nmax" ] && nmax=$nlast
    echo "$s $alast $nlast" >>"$OUT/rss-$name.txt"
    sleep 1
  done
  [ "$every" = 0 ] && wait $w1 $w2
  local t1 a1 n1
  t1=$(date +%s.%N); a1=$(ticks $APID); n1=$(ticks $NPID)
  awk -v n="$name" -v a="$((a1 - a0))" -v b="$((n1 - n0))" -v hz="$HZ" -v t0="$t0" -v t1="$t1" \
    -v am="$amax" -v nm="$nmax" -v al="$alast" -v nl="$nlast" 'BEGIN{
      d=t1-t0
      printf "%-6s %-14s CPU %6.3f%% of one core over %.0f s, RSS max %5.1f MiB, last %5.1f MiB\n", n, "gpuscout", 100*a/hz/d, d, am/1024, al/1024
      printf "%-6s %-14s CPU %6.3f%% of one core over %.0f s, RSS max %5.1f MiB, last %5.1f MiB\n", n, "node_exporter", 100*b/hz/d, d, nm/1024, nl/1024
    }' | tee -a "$OUT/summary.txt"
}

: >"$OUT/summary.txt"
echo "agent-bench: $GPUS fake GPUs sampled every 1 s; gpuscout $(series $AP) series, node_exporter $(series $NP) series; $(nproc) CPUs" | tee -a "$OUT/summary.txt"
phase idle "$IDLE_SECONDS" 15
phase load "$LOAD_SECONDS" 0
for w in agent node-exporter; do
  awk -v w="$w" '/Requests\/sec/{r=$2} /^ +50%/{p50=$2} /^ +90%/{p90=$2} /^ +99%/{p99=$2} END{
    printf "scrape %-14s %s req/s, latency p50 %s p90 %s p99 %s\n", w, r, p50, p90, p99}' "$OUT/wrk-$w.txt" | tee -a "$OUT/summary.txt"
done
