# A stand-in for PyTorch 1.13's API surface as doctor's probe touches it
# (torch.__version__, torch.version.cuda without .hip, torch.cuda with a
# warning from is_available(), cudnn and nccl versions as ints), so the
# probe is tested without installing torch. Not PyTorch code.
from . import version, cuda, backends

__version__ = "1.13.1+cu117"
