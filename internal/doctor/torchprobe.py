# gpuscout doctor's Python probe: prints one JSON object describing this
# Python and the PyTorch it imports. It must run on Python 3.7+ and PyTorch
# 1.13 to 2.11, with or without a GPU, and print JSON even when torch is
# absent or broken: getattr and try guard everything newer versions added.
import json
import sys
import warnings

out = {
    "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": getattr(sys, "base_prefix", sys.prefix),
}


def err(e):
    return ("%s: %s" % (type(e).__name__, e))[:500]


try:
    import torch
except ImportError as e:
    out["torch_error"] = err(e)
    out["torch_missing"] = type(e).__name__ == "ModuleNotFoundError" and getattr(e, "name", "") == "torch"
    print(json.dumps(out))
    sys.exit(0)
except Exception as e:
    out["torch_error"] = err(e)
    print(json.dumps(out))
    sys.exit(0)

t = {"version": str(getattr(torch, "__version__", ""))}
tv = getattr(torch, "version", None)
t["cuda"] = getattr(tv, "cuda", None)
t["hip"] = getattr(tv, "hip", None)
t["path"] = getattr(torch, "__file__", None)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        t["cuda_available"] = bool(torch.cuda.is_available())
    except Exception as e:
        t["cuda_available"] = False
        t["cuda_error"] = err(e)
    try:
        t["device_count"] = int(torch.cuda.device_count())
    except Exception as e:
        t["device_count"] = 0
        t.setdefault("cuda_error", err(e))
t["cuda_warnings"] = [str(w.message)[:500] for w in caught][:5]
names = []
if t.get("cuda_available"):
    for i in range(t.get("device_count", 0)):
        try:
            names.append(torch.cuda.get_device_name(i))
        except Exception as e:
            names.append("?")
t["devices"] = names
try:
    t["cudnn"] = torch.backends.cudnn.version()
except Exception:
    t["cudnn"] = None
nccl = None
if t["cuda"]:
    try:
        import torch.cuda.nccl
        v = torch.cuda.nccl.version()
        nccl = list(v) if isinstance(v, (tuple, list)) else int(v)
    except Exception:
        nccl = None
t["nccl"] = nccl
try:
    t["arch_list"] = list(torch.cuda.get_arch_list()) if t["cuda"] else []
except Exception:
    t["arch_list"] = []
out["torch"] = t
print(json.dumps(out))
