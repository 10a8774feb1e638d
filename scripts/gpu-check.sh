#!/usr/bin/env bash
# The GPU check, in one prepared run on a GPU machine (issue 26): gpuscout
# and PyTorch measured at EQUAL sizes on one GPU, side by side.
#
#   1. build the CGO-free gpuscout and the comparison helper
#      (internal/bench/gpucheck)
#   2. gpuscout doctor
#   3. gpuscout bench: GEMM fp32/tf32/bf16/fp16, the device copy and the
#      pinned host copies (burst figures), at its full sizes (--quick: its
#      quick sizes)
#   4. gpuscout bench: the sustained bf16 GEMM for $SUSTAIN seconds, with
#      nvidia-smi sampling clocks, power, temperature and utilisation
#   5. PyTorch (internal/bench/gpucheck/torch_check.py) at the sizes step 3
#      reports: the same n³ for every type, the same copy sizes
#   6. PyTorch's sustained bf16 GEMM, same n, same length, same sampling
#   7. the table: measurement | unit | gpuscout | PyTorch | ratio
#
# Under 8 minutes on one GPU with the defaults (SUSTAIN=60; each step has a
# time limit, and the elapsed time is printed at each step). Everything goes
# under $OUT (default artefacts/gpu-check).
#
# Usage: scripts/gpu-check.sh [--quick]
# Environment: GPU (the nvidia-smi index to use, default 0), SUSTAIN
# (seconds, default 60), GPUSCOUT_PYTHON (the python with torch; default
# python3), OUT.
# Exit status: 0 done, 1 a step failed (the table still prints what was
# measured), 2 no NVIDIA GPU here or a bad argument.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

quick=""
case "${1:-}" in
"") ;;
--quick) quick=--quick ;;
*)
	echo "usage: scripts/gpu-check.sh [--quick]" >&2
	exit 2
	;;
esac
OUT=${OUT:-artefacts/gpu-check}
GPU=${GPU:-0}
SUSTAIN=${SUSTAIN:-60}
PY=${GPUSCOUT_PYTHON:-python3}
case "$GPU$SUSTAIN" in
*[!0-9]*)
	echo "gpu-check: GPU and SUSTAIN must be whole numbers (got GPU=$GPU SUSTAIN=$SUSTAIN)" >&2
	exit 2
	;;
esac

# One GPU, numbered the same by nvidia-smi, gpuscout and PyTorch.
export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$GPU

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -i "$GPU" -L 2>/dev/null | grep -q '^GPU '; then
	echo "gpu-check: no NVIDIA GPU $GPU here (nvidia-smi is missing or lists none): run it on a GPU machine" >&2
	exit 2
fi
mkdir -p "$OUT" || exit 2
t0=$(date +%s)
failed=0
step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }
fail() {
	echo "gpu-check: $*" >&2
	failed=1
}

# smi_start FILE samples the GPU every 250 ms into FILE in the background;
# smi_stop ends it.
smi_pid=""
smi_start() {
	nvidia-smi -i "$GPU" --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,utilization.gpu \
		--format=csv,noheader,nounits -lms 250 >"$1" 2>/dev/null &
	smi_pid=$!
}
smi_stop() {
	if [ -n "$smi_pid" ]; then
		kill "$smi_pid" 2>/dev/null
		wait "$smi_pid" 2>/dev/null
		smi_pid=""
	fi
}
trap smi_stop EXIT

step "build (CGO_ENABLED=0)"
CGO_ENABLED=0 go build -o "$OUT/gpuscout" ./cmd/gpuscout || exit 1
CGO_ENABLED=0 go build -o "$OUT/gpucheck" ./internal/bench/gpucheck || exit 1

step "nvidia-smi"
nvidia-smi -i "$GPU" --query-gpu=index,name,driver_version,memory.total,power.limit,clocks.max.sm,temperature.gpu --format=csv |
	tee "$OUT/nvidia-smi.csv"

step "gpuscout doctor"
timeout 60 "$OUT/gpuscout" doctor 2>&1 | tee "$OUT/doctor.txt"

step "gpuscout bench${quick:+ $quick}: GEMM, device copy, host copies"
timeout 150 "$OUT/gpuscout" bench $quick --only gemm,hbm,h2d,d2h --dtypes fp32,tf32,bf16,fp16 \
	--out "$OUT/bench.json" 2>&1 | tee "$OUT/bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail "gpuscout bench failed (see $OUT/bench.txt)"

step "gpuscout bench: sustained bf16 for ${SUSTAIN}s"
smi_start "$OUT/smi-gpuscout.csv"
timeout $((SUSTAIN + 90)) "$OUT/gpuscout" bench $quick --only sustain --sustain "${SUSTAIN}s" --dtypes bf16 \
	--out "$OUT/sustain.json" 2>&1 | tee "$OUT/sustain.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail "gpuscout's sustained run failed (see $OUT/sustain.txt)"
smi_stop

# PyTorch measures at gpuscout's sizes, read from its report.
sizes=$("$OUT/gpucheck" sizes "$OUT/bench.json") || fail "no sizes in $OUT/bench.json: PyTorch cannot match them"
n="" copy_bytes="" host_bytes=""
for kv in $sizes; do
	case "$kv" in
	n=[0-9]*) n=${kv#n=} ;;
	copy_bytes=[0-9]*) copy_bytes=${kv#copy_bytes=} ;;
	host_bytes=[0-9]*) host_bytes=${kv#host_bytes=} ;;
	esac
done
echo "equal sizes: GEMM ${n:-?}³ for every type, device copy ${copy_bytes:-?} B, host copies ${host_bytes:-?} B, sustained bf16 ${n:-?}³ for ${SUSTAIN}s"

if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>"$OUT/torch.err"; then
	fail "$PY has no PyTorch with CUDA (GPUSCOUT_PYTHON picks the interpreter): the PyTorch column is empty"
elif [ -n "$n" ]; then
	step "PyTorch at the same sizes"
	timeout 180 "$PY" internal/bench/gpucheck/torch_check.py --n "$n" --copy-bytes "$copy_bytes" --host-bytes "$host_bytes" \
		--dtypes fp32,tf32,bf16,fp16 >"$OUT/torch.json" 2>"$OUT/torch.err" || fail "the PyTorch reference failed: $(tail -3 "$OUT/torch.err")"

	step "PyTorch: sustained bf16 for ${SUSTAIN}s"
	smi_start "$OUT/smi-torch.csv"
	timeout $((SUSTAIN + 90)) "$PY" internal/bench/gpucheck/torch_check.py --n "$n" --dtypes "" \
		--sustain-seconds "$SUSTAIN" --sustain-dtype bf16 >"$OUT/torch-sustain.json" 2>>"$OUT/torch.err" ||
		fail "PyTorch's sustained run failed: $(tail -3 "$OUT/torch.err")"
	smi_stop
fi

step "gpuscout | PyTorch | ratio (GPU $GPU)"
"$OUT/gpucheck" table --bench "$OUT/bench.json" --sustain "$OUT/sustain.json" --torch "$OUT/torch.json" \
	--torch-sustain "$OUT/torch-sustain.json" --smi-gpuscout "$OUT/smi-gpuscout.csv" --smi-torch "$OUT/smi-torch.csv" \
	--dtype bf16 | tee "$OUT/table.txt"
elapsed=$(($(date +%s) - t0))
step "done in ${elapsed}s"
[ "$elapsed" -le 480 ] || echo "gpu-check: took ${elapsed}s, over the 8-minute budget (lower SUSTAIN)" >&2
exit "$failed"
