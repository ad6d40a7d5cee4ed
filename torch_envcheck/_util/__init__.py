"""Small helpers every room may use and that import nothing else of the package:

    args          the commands' shared flags and one-line errors, stdout kept clean while probes run
    atomic_write  writing a file atomically
    bounds        the size bounds of every JSON document written and read back
    capped        a bounded buffer for a child's output (head and tail kept, the gap counted)
    envflags      boolean environment flags
    escape        escaping a value for where it lands
    proc          running a helper program with a time limit
    safe_open     reading a path a stranger controls without blocking (regular files, bounded)
    signalled     a signal turned into an exception that unwinds the main thread
    stopflag      a fleet rank 0's signals recorded before the fleet's handler exists
    textout       writing text to a stream whose encoding may not hold it
    versions      the one version parser, and the CUDA and cuDNN version decoders
"""
