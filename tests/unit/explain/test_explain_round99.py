"""explain's ninety-ninth round, from the misses of test154 to test158 (simulators, headless rendering, notebooks,
NLP libraries, Nix and container runtimes): EGL where none loads, EGL listing no NVIDIA device, the EGL/OpenGL
development files a build needs, the web UI's torch check, Colab's GPU check, Cython modules of mixed builds, and
the modeset node a container asks for. The texts are written for these tests from the message formats of PyOpenGL,
MuJoCo, GNU ld, gcc, the web UI's launcher, Colab's sample notebook, Cython and nvidia-container-cli, not copied
from the corpus."""

from __future__ import annotations

import re

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import headers


def _r(text):
    return diagnose.diagnose(text)


def test_egl_unloadable_is_read_by_the_platform_it_ran_on():
    mac = _r("ImportError: ('Unable to load EGL library', \"dlopen(EGL, 0x0006): image not found\", 'EGL', None)")
    assert mac["signature"] == "egl-on-macos" and mac["layer"] == "macos"
    assert "not available on macOS" in mac["fix"] or "macOS" in mac["fix"]
    win = _r("  File \"C:\\\\tools\\\\demo\\\\render.py\", line 3, in <module>\n"
             "ImportError: ('Unable to load EGL library', 'EGL: cannot open shared object file', 'EGL', None)")
    assert win["signature"] == "egl-library-unloadable" and win["layer"] == "env"
    assert "PYOPENGL_PLATFORM" in win["fix"] and "apt-get" not in win["fix"]
    linux = _r("  File \"/usr/lib/python3/dist-packages/OpenGL/platform/egl.py\", line 70, in EGL\n"
               "ImportError: ('Unable to load EGL library', 'EGL: cannot open shared object file', 'EGL', None)")
    assert linux["signature"] == "egl-library-unloadable" and linux["layer"] == "env"
    assert "libegl1" in linux["fix"] and "PYOPENGL_PLATFORM" in linux["fix"]
    # with libglvnd's soname named, the missing library is the answer (gl_libraries_missing)
    named = _r("ImportError: ('Unable to load EGL library', 'libEGL.so.1: cannot open shared object file', 'EGL', None)")
    assert named["signature"] == "gl-libraries-missing"
    box = _r("inside the docker container:\nImportError: ('Unable to load EGL library', 'EGL: cannot open shared object "
             "file: No such file or directory', 'EGL', None)")
    assert box["layer"] == "container" and "NVIDIA_DRIVER_CAPABILITIES" in box["fix"]


def test_egl_listing_too_few_devices_is_the_drivers_egl():
    r = _r("RuntimeError: The MUJOCO_EGL_DEVICE_ID environment variable must be an integer between 0 and 1 (inclusive), "
           "got 3.")
    assert r["signature"] == "egl-devices-lack-gpu" and r["layer"] == "driver"
    assert "2 device" in r["title"] and "10_nvidia.json" in r["fix"]
    d = _r("none of 2 egl devices matches the active cuda device")
    assert d["signature"] == "egl-devices-lack-gpu" and "libnvidia-gl" in d["fix"]


def test_the_linker_and_the_compiler_wanting_egl_or_opengl_development_files():
    for lib, pkg in (("EGL", "libegl1-mesa-dev"), ("GL", "libgl1-mesa-dev"), ("GLESv2", "libgles2-mesa-dev"),
                     ("OpenGL", "libglvnd-dev")):
        r = _r(f"/usr/bin/ld: cannot find -l{lib}: No such file or directory\ncollect2: error: ld returned 1 exit status")
        assert r["signature"] == "gl-dev-library-for-linker" and r["layer"] == "toolchain", lib
        assert pkg in r["fix"] and f"lib{lib}.so" in r["fix"], lib
    # a library outside the family is not this rule's
    assert _r("/usr/bin/ld: cannot find -lGLEW\ncollect2: error: ld returned 1 exit status")["signature"] != \
        "gl-dev-library-for-linker"
    for h in ("EGL/egl.h", "EGL/eglext.h", "GL/gl.h", "GLES3/gl3.h", "KHR/khrplatform.h"):
        row = headers.owner_of(h)
        assert row is not None and row["owner"] == "gl-dev", h
        r = _r(f"src/render/glutil.cpp:14:10: fatal error: {h}: No such file or directory\ncompilation terminated.")
        assert r["signature"] == "header-missing" and "libegl1-mesa-dev" in r["fix"], h
    assert headers.owner_of("GL/glu.h") is None  # GLU's headers are another package's


def test_the_web_uis_torch_check():
    plain = _r("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
               "disable this check")
    assert plain["signature"] == "webui-torch-cannot-use-gpu" and plain["layer"] == "torch-build"
    assert "TORCH_COMMAND" in plain["fix"] and "download.pytorch.org/whl/cu" in plain["fix"]
    assert "cudaSupport" not in plain["fix"]
    cmd = _r("RuntimeError: Error running command.\nCommand: \"/nix/store/abc-python3-3.10.7/bin/python3\" -c \"import "
             "torch; assert torch.cuda.is_available(), 'Torch is not able to use GPU'\"\nError code: 1")
    assert cmd["signature"] == "webui-torch-cannot-use-gpu" and "cudaSupport" in cmd["fix"]
    amd = _r("NVIDIA GeForce RTX 3080\nInstalling torch: torch==2.0.1+rocm5.4.2\nRuntimeError: Torch is not able to use "
             "GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check")
    assert "another GPU vendor" in amd["explanation"]


def test_colabs_gpu_check_is_the_runtime_type():
    r = _r("SystemError                               Traceback (most recent call last)\n"
           "----> 4   raise SystemError('GPU device not found')\n\nSystemError: GPU device not found")
    assert r["signature"] == "colab-gpu-check-failed" and r["layer"] == "gpu-unused"
    assert "Change runtime type" in r["fix"] and re.search(r"Disconnect and delete runtime", r["fix"])


def test_cython_modules_of_mixed_builds():
    cupy = _r("  File \"cupy/core/carray.pxi\", line 1, in init cupy.core.core\n"
              "AttributeError: type object 'cupy.core.core.Indexer' has no attribute '__reduce_cython__'")
    assert cupy["signature"] == "cython-module-mixed-builds" and cupy["layer"] == "toolchain"
    assert "cupy-cuda12x" in cupy["fix"] and "uninstall" in cupy["fix"]
    other = _r("AttributeError: type object 'pyfoo._speedups.Reader' has no attribute '__reduce_cython__'")
    assert other["signature"] == "cython-module-mixed-builds" and "pip uninstall -y pyfoo" in other["fix"]
    assert "cupy" not in other["fix"]


def test_the_modeset_node_a_container_asks_for():
    r = _r("nvidia-container-cli: mount error: stat failed: /dev/nvidia-modeset: no such file or directory\n"
           "[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1")
    assert r["signature"] == "container-cli-modeset-node-missing" and r["layer"] == "container"
    assert "NVIDIA_DRIVER_CAPABILITIES=compute,utility" in r["fix"]
