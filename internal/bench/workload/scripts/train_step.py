"""gpuscout's bundled training-step workloads, run by `gpuscout bench workload`.

A real PyTorch training step (forward, loss, backward, optimizer step) on
synthetic data, timed after a warm-up; prints one JSON object on stdout.
Works from torch 1.13 (Debian bookworm) to 2.x, on CUDA and on the CPU.

  python3 train_step.py --model resnet50 --batch 256 --steps 20
  python3 train_step.py --model bert-large --find-max-batch
  python3 train_step.py --model resnet50 --device cpu --tiny --batch 2 --steps 2
"""
import argparse
import json
import math
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--model", choices=["resnet50", "bert-large"], required=True)
    p.add_argument("--batch", type=int, default=0, help="per-step batch; 0: the model's default")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--device", default="auto", help="auto, cuda, cuda:N or cpu")
    p.add_argument("--amp", default="auto", choices=["auto", "on", "off"])
    p.add_argument("--tiny", action="store_true", help="tiny shapes (tests): 32x32 images, a 2-layer 128-wide encoder")
    p.add_argument("--find-max-batch", action="store_true")
    p.add_argument("--max-batch", type=int, default=4096)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    return p.parse_args(argv)


def build(torch, args, device):
    nn = torch.nn
    if args.model == "resnet50":
        import torchvision
        try:
            model = torchvision.models.resnet50(weights=None)
        except TypeError:  # torchvision < 0.13
            model = torchvision.models.resnet50(pretrained=False)
        side = 32 if args.tiny else 224

        def batch_of(n):
            x = torch.randn(n, 3, side, side, device=device)
            y = torch.randint(0, 1000, (n,), device=device)
            return x, y

        unit, default_batch = "images", (2 if args.tiny else 128)
    else:
        hidden, layers, heads, vocab = (128, 2, 2, 1000) if args.tiny else (1024, 24, 16, 30522)
        seq = 16 if args.tiny else args.seq_len

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(vocab, hidden)
                self.pos = nn.Parameter(torch.zeros(1, seq, hidden))
                layer = nn.TransformerEncoderLayer(d_model=hidden, nhead=heads, dim_feedforward=4 * hidden,
                                                   dropout=0.1, activation="gelu", batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
                self.norm = nn.LayerNorm(hidden)
                self.head = nn.Linear(hidden, vocab)

            def forward(self, tokens):
                h = self.encoder(self.embed(tokens) + self.pos)
                return self.head(self.norm(h)).reshape(-1, vocab)

        model = Encoder()

        def batch_of(n):
            x = torch.randint(0, vocab, (n, seq), device=device)
            y = torch.randint(0, vocab, (n * seq,), device=device)
            return x, y

        unit, default_batch = "sequences", (2 if args.tiny else 32)
    return model.to(device), batch_of, unit, default_batch


def is_oom(torch, e):
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in str(e).lower()


def run(torch, args, device, model, batch_of, batch, amp):
    """Times args.steps training steps of batch after args.warmup; returns step times in ms."""
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    cuda = device.type == "cuda"
    scaler = torch.cuda.amp.GradScaler(enabled=amp and cuda)
    x, y = batch_of(batch)
    times = []
    for i in range(args.warmup + args.steps):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        else:
            t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=torch.float16 if cuda else torch.bfloat16, enabled=amp):
            loss = loss_fn(model(x).float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if cuda:
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            ms = (time.perf_counter() - t0) * 1000
        if not math.isfinite(loss.item()):
            raise RuntimeError("loss is not finite at step %d" % i)
        if i >= args.warmup:
            times.append(ms)
    return times


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main(argv):
    args = parse_args(argv)
    out = {"model": args.model, "ok": False}
    try:
        import torch
    except ImportError as e:
        out["error"] = "PyTorch is not installed for %s: %s" % (sys.executable, e)
        print(json.dumps(out))
        return 3
    out.update(torch=torch.__version__, torch_cuda=getattr(torch.version, "cuda", None), python=sys.version.split()[0])
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    dev = args.device
    if dev == "auto":
        dev = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(dev)
    if device.type == "cuda" and not torch.cuda.is_available():
        out["error"] = "CUDA is not available to this PyTorch (built for CUDA %s)" % out["torch_cuda"]
        print(json.dumps(out))
        return 3
    amp = args.amp == "on" or (args.amp == "auto" and device.type == "cuda")
    torch.manual_seed(0)
    model, batch_of, unit, default_batch = build(torch, args, device)
    model.train()
    out.update(device=str(device), amp=amp, unit=unit, tiny=args.tiny)
    if device.type == "cuda":
        out["device_name"] = torch.cuda.get_device_name(device)
    batch = args.batch or default_batch
    tried = []
    if args.find_max_batch:
        # Double until a step runs out of memory (or max-batch), then bisect.
        lo, hi, b = 0, None, max(1, batch)
        while hi is None or hi - lo > 1:
            try:
                run(torch, argparse.Namespace(**dict(vars(args), warmup=1, steps=1)), device, model, batch_of, b, amp)
                tried.append({"batch": b, "fits": True})
                lo = b
            except RuntimeError as e:
                if not is_oom(torch, e):
                    raise
                tried.append({"batch": b, "fits": False})
                hi = b
                if device.type == "cuda":
                    torch.cuda.empty_cache()
            if hi is None:
                if b >= args.max_batch:
                    break
                b = min(b * 2, args.max_batch)
            else:
                b = (lo + hi) // 2
                if b <= lo:
                    break
        out["max_batch"] = lo
        out["max_batch_capped"] = hi is None
        out["tried"] = tried
        if lo == 0:
            out["error"] = "even a batch of 1 does not fit"
            print(json.dumps(out))
            return 1
        batch = lo
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    times = run(torch, args, device, model, batch_of, batch, amp)
    med = median(times)
    out.update(ok=True, batch=batch, steps=len(times), step_ms=times, step_ms_median=med,
               samples_per_s=batch * 1000.0 / med)
    if device.type == "cuda":
        out["peak_memory_bytes"] = torch.cuda.max_memory_allocated(device)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
