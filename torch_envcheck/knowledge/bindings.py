"""The language bindings built on LibTorch: how each finds the LibTorch it runs on, and the words it uses when it does not.

A pure table (no I/O).  Rust's tch, .NET's TorchSharp, Java's DJL and PyTorch's own Java bindings load LibTorch's
native libraries themselves; when they cannot, each says so in its own words, and each is fixed through its own
settings (an environment variable, a package reference), not through pip.

    reading(text) -> {"binding", "kind", "what", "fix", "source", "at"} | None     the last binding message in `text`

Rows cite each binding's own documentation."""

from __future__ import annotations

import re

_TCH = "https://github.com/LaurentMazare/tch-rs/blob/main/README.md"
_TORCHSHARP = "https://github.com/dotnet/TorchSharp/blob/main/README.md"
_DJL_PT = "https://docs.djl.ai/master/engines/pytorch/pytorch-engine/index.html"
_DJL_TROUBLE = "https://docs.djl.ai/master/docs/development/troubleshooting.html"
_JAVA_DEMO = "https://github.com/pytorch/java-demo/blob/master/README.md"

# (pattern, binding, kind, what it means, fix, source); the most specific first within a binding.  kind: "setup" (the
# binding's settings point at no LibTorch), "package" (the LibTorch package or variant the binding needs is not the one
# present), "vc-runtime" (a Windows DLL dependency), "loader" (another or a mismatched native library was loaded)
_ROWS = (
    (r"Cannot find a libtorch install", "tch (Rust)", "setup",
     "torch-sys's build script found no LibTorch: LIBTORCH is unset, no system-wide libtorch is installed, and "
     "LIBTORCH_USE_PYTORCH is not set",
     "Download the LibTorch of the version your tch release requires and set LIBTORCH=<its folder> (and "
     "LD_LIBRARY_PATH=<its folder>/lib at run time), or set LIBTORCH_USE_PYTORCH=1 to build against the torch installed in "
     "the active Python (its version must be the one tch requires, or set LIBTORCH_BYPASS_VERSION_CHECK=1).", _TCH),
    (r"torch-sys-[0-9a-f]{6,20}[/\\]out[/\\]libtch[/\\]torch_api|libtch/torch_api(?:_generated)?\.cpp: ?\d{1,6}:\d{1,4}: "
     r"error", "tch (Rust)", "setup",
     "torch-sys compiles its C++ wrapper (libtch/torch_api.cpp and torch_api_generated.cpp) against the LibTorch it "
     "found, and each tch release is written for one LibTorch version: with a LibTorch of another version the wrapper "
     "does not compile",
     "Use the LibTorch version your tch release requires (the tch README names it; libtorch/build-version, or "
     "torch.__version__ with LIBTORCH_USE_PYTORCH, shows the one found), or the tch release written for the LibTorch "
     "version you have; LIBTORCH_BYPASS_VERSION_CHECK only skips the check, not the API differences.", _TCH),
    (r"CUDA non available in the current machine", "TorchSharp (.NET)", "package",
     "TorchSharp found no CUDA backend in the process: the project references only the CPU native package "
     "(TorchSharp-cpu / libtorch-cpu), or the CUDA native libraries (torch_cuda) were not loaded",
     "Reference the CUDA native package in the project that runs (TorchSharp-cuda-windows or TorchSharp-cuda-linux), "
     "rebuild, check that runtimes\\<rid>\\native holds torch_cuda, and keep the NVIDIA driver new enough for that "
     "package's CUDA; releases before the packages existed loaded it explicitly (NativeLibrary.Load of torch_cuda.dll) "
     "before the first CUDA call.", _TORCHSHARP),
    (r"libtorch_python\.so: cannot open shared object file", "a program on LibTorch (DJL, C++)", "setup",
     "a native library built for the Python torch (a pip package's extension, such as torchtext's _torchtext.so or "
     "torchvision's _C.so) was loaded into LibTorch: it links libtorch_python.so, which exists only inside the Python "
     "wheel",
     "Load only libraries built against LibTorch itself (build the extension's C++ library against the LibTorch your "
     "binding uses, not the Python package's .so); the Python extensions need the Python torch and its "
     "libtorch_python.", _DJL_PT),
    (r"uses TorchSharp but doesn't contain a reference to (?P<pkg>libtorch-[\w.-]{1,60})", "TorchSharp (.NET)", "package",
     "TorchSharp found none of the libtorch native packages (libtorch-cpu, libtorch-cuda-12.x) in the application's "
     "output: the project does not reference {pkg} so that NuGet copies its native files",
     "Reference the native package in the project that runs (`dotnet add package TorchSharp-cpu`, or TorchSharp-cuda-"
     "windows / -linux, which bring libtorch-*; with packages.config, migrate to PackageReference), rebuild, and check "
     "that runtimes\\<rid>\\native holds torch_cpu and LibTorchSharp.", _TORCHSHARP),
    (r"Can't find dependent libraries", "DJL (Java)", "vc-runtime",
     "Windows could not load a DLL of the PyTorch native library DJL downloaded: a DLL it depends on is missing, most "
     "often the Microsoft Visual C++ runtime",
     "Install the latest Microsoft Visual C++ Redistributable (x64), https://aka.ms/vs/17/release/vc_redist.x64.exe, "
     "then run again (DJL's troubleshooting, UnsatisfiedLinkError on Windows).", _DJL_TROUBLE),
    (r"Loading native library: (?P<lib>/usr/lib\w*/libtorch\w*\.so|/usr/local/lib/libtorch\w*\.so)[\s\S]{0,2000}?"
     r"Failed to load PyTorch native library", "DJL (Java)", "loader",
     "DJL loaded the system's libtorch ({lib}, a distribution's or a pip/conda PyTorch on the library path) and paired "
     "it with its own JNI library built for another LibTorch",
     "Keep DJL on the LibTorch it downloads (remove the system libtorch from the library path), or point it at a "
     "matching one explicitly with PYTORCH_LIBRARY_PATH (with PYTORCH_VERSION / PYTORCH_FLAVOR of that LibTorch).",
     _DJL_PT),
    (r"No PyTorch native library matches your operating system: (?P<plat>[\w.:-]{1,60})", "DJL (Java)", "package",
     "DJL has no PyTorch native build for {plat}: the PyTorch version pinned is older than DJL's builds for this "
     "platform (Apple silicon builds came later)",
     "Use a DJL release whose PyTorch builds include this platform (pytorch-native-auto follows the engine version; drop "
     "an old explicit PYTORCH_VERSION), or point PYTORCH_LIBRARY_PATH at a LibTorch for this platform.", _DJL_PT),
    (r"Failed to load PyTorch native library", "DJL (Java)", "loader",
     "DJL could not load the PyTorch native library (LibTorch and its JNI bridge): the versions of DJL's pytorch-engine, "
     "pytorch-jni and pytorch-native-* artifacts disagree, a dependency of the native library is missing, or another "
     "libtorch on the library path was loaded first",
     "Use one consistent set of DJL artifacts (pytorch-engine with its matching pytorch-native and pytorch-jni "
     "versions, or pytorch-native-auto alone), read the \"Caused by\" line (an UnsatisfiedLinkError names the missing "
     "library), and see DJL's troubleshooting page.", _DJL_TROUBLE),
    (r"LIBTORCH_HOME not present in environment", "PyTorch Java bindings (pytorch_java_only)", "setup",
     "the Java demo loads LibTorch (with its libpytorch_jni) from LIBTORCH_HOME, which is unset; a pip or conda torch "
     "does not provide the Java JNI library",
     "Download LibTorch (the pre-cxx11 download, which ships libpytorch_jni, up to torch 2.6) and export "
     "LIBTORCH_HOME=<its folder> before running.", _JAVA_DEMO),
    (r"no pytorch_jni in java\.library\.path", "PyTorch Java bindings (pytorch_java_only)", "package",
     "the JVM found no libpytorch_jni on java.library.path: LIBTORCH_HOME does not point at a LibTorch that ships it (the "
     "cxx11-ABI download has none; the pre-cxx11 one does)",
     "Use the pre-cxx11 LibTorch download (it contains libpytorch_jni) of the version of your pytorch_java_only jar, "
     "and set LIBTORCH_HOME (or -Djava.library.path) to its lib folder.", _JAVA_DEMO),
)
_COMPILED = tuple((re.compile(p), b, kind, what, fix, src) for p, b, kind, what, fix, src in _ROWS)


def reading(text: str) -> dict | None:
    """The first row (most specific) whose message is in `text`, with its meaning filled in; None when none is."""
    for rx, binding, kind, what, fix, src in _COMPILED:
        m = rx.search(text or "")
        if m is not None:
            groups = {k: v for k, v in m.groupdict().items() if v}
            return {"binding": binding, "kind": kind, "what": what.format(**groups) if groups else what,
                    "fix": fix, "source": src, "at": m.start()}
    return None
