from . import cudnn
