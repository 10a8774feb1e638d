#!/usr/bin/env bash
# The GPU check, in one call on a GPU machine (issue 11 part 8): builds the
# CGO-free binary, runs `gpuscout doctor`, `gpuscout bench --quick`, and the
# PyTorch reference doing the same measurements (scripts/torch-reference.py),
# then prints them side by side with the ratio. Must finish within 4 minutes
# on one GPU. Writes everything under $OUT (default: ./artefacts/gpu-check).
# Usage: scripts/gpu-check.sh [--full]     (--full: the whole bench, not --quick)
# Needs: Go (to build), an NVIDIA driver; python3 with torch for the reference
# (GPUSCOUT_PYTHON picks the interpreter). Each step's time is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-artefacts/gpu-check}
mkdir -p "$OUT"
quick=--quick
[ "${1:-}" = "--full" ] && quick=
PY=${GPUSCOUT_PYTHON:-python3}
t0=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }

step "build (CGO_ENABLED=0)"
CGO_ENABLED=0 go build -o "$OUT/gpuscout" ./cmd/gpuscout || exit 1
file "$OUT/gpuscout" 2>/dev/null || true

step "nvidia-smi"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv 2>&1 | tee "$OUT/nvidia-smi.csv"

step "gpuscout doctor"
timeout 60 "$OUT/gpuscout" doctor 2>&1 | tee "$OUT/doctor.txt"
timeout 60 "$OUT/gpuscout" doctor -o json >"$OUT/doctor.json" 2>/dev/null

step "gpuscout bench $quick"
timeout 150 "$OUT/gpuscout" bench $quick --out "$OUT/bench.json" 2>&1 | tee "$OUT/bench.txt"
echo "bench exit: ${PIPESTATUS[0]}"

step "PyTorch reference"
timeout 90 "$PY" scripts/torch-reference.py >"$OUT/torch.json" 2>"$OUT/torch.err" || { echo "reference failed:"; tail -5 "$OUT/torch.err"; }

step "side by side"
"$PY" - "$OUT/bench.json" "$OUT/torch.json" <<'PY'
import json, sys
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except Exception as e:
        print("cannot read %s: %s" % (p, e))
        return {}
g, t = load(sys.argv[1]), load(sys.argv[2])
gm = {}
for m in g.get("measurements", []):
    if m.get("device", 0) in (0, "0", "gpu0") and m.get("value") is not None:
        gm.setdefault(m["name"], m)
tm = {m["name"]: m for m in t.get("measurements", [])}
print("%-14s %12s %12s %8s  %s" % ("measurement", "gpuscout", "pytorch", "ratio", "unit"))
for name in ["gemm_bf16", "gemm_fp16", "gemm_tf32", "gemm_fp32", "hbm_copy", "h2d", "d2h"]:
    a, b = gm.get(name), tm.get(name)
    av = a["value"] if a else None
    bv = b["value"] if b else None
    ratio = "%.3f" % (av / bv) if av and bv else "-"
    unit = (a or b or {}).get("unit", "")
    print("%-14s %12s %12s %8s  %s" % (name, "%.1f" % av if av else "-", "%.1f" % bv if bv else "-", ratio, unit))
print("torch %s on %s" % (t.get("torch"), t.get("device")))
PY
step "done"
