#!/usr/bin/env python3
"""PyTorch reference figures for scripts/gpu-check.sh: the same measurements
`gpuscout bench` makes, done by torch, so the two can be compared in one run.

GEMM: torch.matmul on random n x n operands (never zeros), one CUDA event pair
per product after a warm-up, median time, TFLOP/s = 2n^3 / t (decimal).
tf32: fp32 operands with torch.backends.cuda.matmul.allow_tf32 = True.
hbm_copy: device-to-device copy of a 2 GiB tensor, bytes read + written.
h2d / d2h: pinned host memory, 1 GiB.
Prints one JSON object: {"torch": ..., "device": ..., "measurements": [{"name", "value", "unit"}]}.
--device cpu runs the fp32 GEMM and the copy on the CPU (wall clock), to check the script anywhere.
"""
import argparse
import json
import statistics
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda")
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--copy-gib", type=float, default=2.0)
    p.add_argument("--host-gib", type=float, default=1.0)
    a = p.parse_args()
    import torch

    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    out = {"torch": torch.__version__, "torch_cuda": getattr(torch.version, "cuda", None), "measurements": []}
    out["device"] = torch.cuda.get_device_name(dev) if cuda else "cpu"

    def timed(fn, reps, warm=3):
        for _ in range(warm):
            fn()
        times = []
        for _ in range(reps):
            if cuda:
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e) / 1000.0)
            else:
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
        return statistics.median(times)

    def add(name, value, unit):
        out["measurements"].append({"name": name, "value": float("%.4g" % value), "unit": unit})

    dtypes = [("fp32", torch.float32, False)]
    if cuda:
        dtypes += [("tf32", torch.float32, True), ("bf16", torch.bfloat16, False), ("fp16", torch.float16, False)]
    n = a.n
    for name, dt, tf32 in dtypes:
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = tf32
        x = torch.randn(n, n, device=dev).to(dt)
        y = torch.randn(n, n, device=dev).to(dt)
        t = timed(lambda: torch.matmul(x, y), a.reps)
        add("gemm_" + name, 2 * n ** 3 / t / 1e12, "TFLOP/s")
        del x, y
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
    nbytes = int(a.copy_gib * (1 << 30))
    src = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    t = timed(lambda: dst.copy_(src), a.reps)
    add("hbm_copy" if cuda else "cpu_mem_copy", 2 * nbytes / t / 1e9, "GB/s")
    del src, dst
    if cuda:
        hb = int(a.host_gib * (1 << 30))
        host = torch.empty(hb, dtype=torch.uint8).pin_memory()
        host.random_(0, 255)
        d = torch.empty(hb, dtype=torch.uint8, device=dev)
        add("h2d", hb / timed(lambda: d.copy_(host, non_blocking=True), a.reps) / 1e9, "GB/s")
        add("d2h", hb / timed(lambda: host.copy_(d, non_blocking=True), a.reps) / 1e9, "GB/s")
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
