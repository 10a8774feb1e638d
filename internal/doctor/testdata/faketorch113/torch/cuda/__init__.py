import warnings


def is_available():
    warnings.warn("CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).")
    return False


def device_count():
    return 0


def get_device_name(i):
    raise RuntimeError("no device")
