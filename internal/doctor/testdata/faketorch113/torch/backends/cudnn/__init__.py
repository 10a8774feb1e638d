def version():
    return 8500
