"""Small helpers every room may use and that import nothing else of the package: running a helper
program with a time limit (proc), escaping a value for where it lands (escape), writing a file
atomically (atomic_write), boolean environment flags (envflags), and the one version parser with
the CUDA and cuDNN version decoders (versions)."""
