#!/usr/bin/env python3
"""The PyTorch side of scripts/gpu-check.sh: the measurements gpuscout makes,
at the sizes gpuscout measured at (the script reads them from gpuscout's
report), timed the way gpuscout times them, so that the two compare.

GEMM: torch.matmul(a, b, out=c) on n x n operands of the type (tf32: fp32
with torch.backends.cuda.matmul.allow_tf32), after a warm-up; a sample is a
batch of products lasting about 5 ms between two CUDA events; the figure is
2n^3 over the median product time (decimal TFLOP/s).
hbm_copy: dst.copy_(src) of --copy-bytes, bytes read + written.
h2d / d2h: --host-bytes to and from pinned host memory, bytes counted once.
Sustained (--sustain-seconds > 0): the --sustain-dtype product back to back,
in batches timed by events, with the host never more than four batches
ahead; burst is the median of the first batches holding ten products,
sustained the median of the last quarter of the batches (gpuscout's
definitions).

Prints one JSON object: {"torch", "device", "sizes", "measurements": [{"name",
"value", "unit"}]}. --device cpu runs the same code on the CPU with the wall
clock, so that the script can be checked where there is no GPU.
"""
import argparse
import json
import math
import statistics
import sys
import time

TARGET_S = 0.005  # a sample lasts about this long, as gpuscout's do
BURST_PRODUCTS = 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda")
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--copy-bytes", type=int, default=0)
    p.add_argument("--host-bytes", type=int, default=0)
    p.add_argument("--dtypes", default="fp32,tf32,bf16,fp16")
    p.add_argument("--samples", type=int, default=10)
    p.add_argument("--sustain-seconds", type=float, default=0)
    p.add_argument("--sustain-dtype", default="bf16")
    a = p.parse_args()
    if a.n <= 0:
        p.error("--n must be positive")
    import torch

    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda and not torch.cuda.is_available():
        print("torch_check: PyTorch sees no CUDA GPU (torch %s, built for CUDA %s)" % (torch.__version__, torch.version.cuda),
              file=sys.stderr)
        sys.exit(2)
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(dev) if cuda else "cpu",
           "sizes": {"n": a.n, "copy_bytes": a.copy_bytes, "host_bytes": a.host_bytes}, "measurements": []}

    class Mark:
        """A timestamp on the device: a CUDA event, or the wall clock on the CPU."""

        def __init__(self):
            if cuda:
                self.e = torch.cuda.Event(enable_timing=True)
                self.e.record()
            else:
                self.t = time.perf_counter()

        def wait(self):
            if cuda:
                self.e.synchronize()

        def until(self, other):
            """Seconds from this mark to a later one (both reached)."""
            if cuda:
                return self.e.elapsed_time(other.e) / 1000.0
            return other.t - self.t

    def per_op(fn, samples, warm=3):
        for _ in range(warm):
            fn()
        s = Mark()
        fn()
        e = Mark()
        e.wait()
        reps = max(1, min(32, math.ceil(TARGET_S / max(s.until(e), 1e-9))))
        times = []
        for _ in range(samples):
            s = Mark()
            for _ in range(reps):
                fn()
            e = Mark()
            e.wait()
            times.append(s.until(e) / reps)
        return statistics.median(times), reps

    def add(name, value, unit):
        out["measurements"].append({"name": name, "value": float("%.6g" % value), "unit": unit})

    types = {"fp32": (torch.float32, False), "tf32": (torch.float32, True), "bf16": (torch.bfloat16, False),
             "fp16": (torch.float16, False)}

    def operands(name):
        dt, tf32 = types[name]
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = tf32
        gen = torch.Generator(device=dev).manual_seed(1)
        # Magnitudes in [0.25, 1) of either sign, never zero, as gpuscout's.
        def rand():
            m = torch.rand(a.n, a.n, device=dev, generator=gen) * 0.75 + 0.25
            sign = torch.randint(0, 2, (a.n, a.n), device=dev, generator=gen) * 2 - 1
            return (m * sign).to(dt)
        x, y = rand(), rand()
        return x, y, torch.empty_like(x)

    flops = 2.0 * a.n ** 3
    for name in [d for d in a.dtypes.split(",") if d]:
        if name not in types or (not cuda and name != "fp32"):
            continue
        x, y, z = operands(name)
        t, _ = per_op(lambda: torch.matmul(x, y, out=z), a.samples)
        add("gemm_" + name, flops / t / 1e12, "TFLOP/s")
        del x, y, z
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False

    if a.copy_bytes > 0:
        src = torch.full((a.copy_bytes // 4,), 1.2345, dtype=torch.float32, device=dev)
        dst = torch.empty_like(src)
        t, _ = per_op(lambda: dst.copy_(src), a.samples)
        add("hbm_copy" if cuda else "cpu_mem_copy", 2 * (a.copy_bytes // 4 * 4) / t / 1e9, "GB/s")
        del src, dst
    if a.host_bytes > 0 and cuda:
        host = torch.full((a.host_bytes // 4,), 1.2345, dtype=torch.float32).pin_memory()
        d = torch.empty(a.host_bytes // 4, dtype=torch.float32, device=dev)
        nb = a.host_bytes // 4 * 4
        add("h2d", nb / per_op(lambda: d.copy_(host, non_blocking=True), a.samples)[0] / 1e9, "GB/s")
        add("d2h", nb / per_op(lambda: host.copy_(d, non_blocking=True), a.samples)[0] / 1e9, "GB/s")
        del host, d

    if a.sustain_seconds > 0:
        name = a.sustain_dtype if cuda else "fp32"
        x, y, z = operands(name)
        product = lambda: torch.matmul(x, y, out=z)
        _, reps = per_op(product, 2, warm=3)

        def batch():
            for _ in range(reps):
                product()

        batch()  # untimed, ahead of the first mark
        marks = [Mark()]
        start = time.monotonic()
        while time.monotonic() - start < a.sustain_seconds:
            batch()
            marks.append(Mark())
            if len(marks) > 5:
                marks[-5].wait()  # the host at most four batches ahead
        marks[-1].wait()
        times = [marks[i].until(marks[i + 1]) / reps for i in range(len(marks) - 1)]
        nb = math.ceil(BURST_PRODUCTS / reps)
        if len(times) < 4 * nb:
            nb = max(1, len(times) // 4)
        burst = statistics.median(times[:nb])
        sust = statistics.median(times[len(times) - max(1, len(times) // 4):])
        add("gemm_%s_burst" % name, flops / burst / 1e12, "TFLOP/s")
        add("gemm_%s_sustained" % name, flops / sust / 1e12, "TFLOP/s")
        out["sustain"] = {"batches": len(times), "per_batch": reps, "seconds": a.sustain_seconds}
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = False

    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
