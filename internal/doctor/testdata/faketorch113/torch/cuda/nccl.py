def version():
    return 21403
