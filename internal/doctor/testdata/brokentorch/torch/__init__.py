# A torch whose import fails the way a wheel with a missing CUDA library does.
raise ImportError("libcudnn.so.9: cannot open shared object file: No such file or directory")
