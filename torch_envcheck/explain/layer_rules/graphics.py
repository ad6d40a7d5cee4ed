"""Layer rules for the GPU's graphics side under simulators and renderers (Isaac, MuJoCo, Habitat, nvdiffrast,
PyTorch3D): EGL's error codes, the driver's EGL/GL libraries missing (in containers: the graphics capability), and a
component's own floor on the driver.

    egl_error            eglInitialize failing, or an EGL error code (decoded from Khronos' egl.h: 0x3008
                         EGL_BAD_DISPLAY, ...) -> the NVIDIA driver's EGL library and its vendor file, a device
                         platform; in containers NVIDIA_DRIVER_CAPABILITIES=graphics
    gl_libraries_missing  libEGL / libOpenGL / libGLX not found -> libglvnd in the image and the driver's GL part
                         (NVIDIA_DRIVER_CAPABILITIES=graphics in a container)
    driver_below_component_floor  "CUDA driver version is 11020, expected at least 11040", Omniverse RTX's
                         unsupported driver range -> a newer driver
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, in_container, last_in_tail
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge.drivers import min_driver_for_cuda

_EGL_H = {"url": "https://registry.khronos.org/EGL/api/EGL/egl.h", "what": "Khronos EGL API header: the error codes"}
_CAPS_DOC = {"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
             "what": "NVIDIA Container Toolkit: NVIDIA_DRIVER_CAPABILITIES (graphics, display)"}

# EGL's error codes (egl.h, EGL 1.5): name by value
EGL_ERRORS = {0x3000: "EGL_SUCCESS", 0x3001: "EGL_NOT_INITIALIZED", 0x3002: "EGL_BAD_ACCESS", 0x3003: "EGL_BAD_ALLOC",
              0x3004: "EGL_BAD_ATTRIBUTE", 0x3005: "EGL_BAD_CONFIG", 0x3006: "EGL_BAD_CONTEXT",
              0x3007: "EGL_BAD_CURRENT_SURFACE", 0x3008: "EGL_BAD_DISPLAY", 0x3009: "EGL_BAD_MATCH",
              0x300A: "EGL_BAD_NATIVE_PIXMAP", 0x300B: "EGL_BAD_NATIVE_WINDOW", 0x300C: "EGL_BAD_PARAMETER",
              0x300D: "EGL_BAD_SURFACE", 0x300E: "EGL_CONTEXT_LOST"}
# the codes that say no usable display/device was found or initialised: the driver's EGL is not the one in use
_NO_DISPLAY = {"EGL_NOT_INITIALIZED", "EGL_BAD_DISPLAY", "EGL_BAD_ACCESS", "EGL_BAD_ALLOC"}

_EGL_FAILED = re.compile(r"egl(?:Initialize|GetDisplay|MakeCurrent)\(?\)?[^\n]{0,30}(?:failed|error)|"
                         r"EGL error[^\n]{0,40}?(?:code:?\s{0,2}"
                         r"(?P<num>0x300[0-9A-Ea-e]|12[23]\d\d)\b)|\b(?P<name>EGL_(?:NOT_INITIALIZED|BAD_[A-Z_]{3,20}))\b")


def egl_error(ent, text):
    m, at = last_in_tail(_EGL_FAILED, text)
    if m is None:
        return None
    name = m.group("name")
    if m.group("num"):
        raw = m.group("num")
        name = EGL_ERRORS.get(int(raw, 16) if raw.lower().startswith("0x") else int(raw))
    if name is not None and name not in _NO_DISPLAY:
        return None
    sig = _sig("egl-no-display", "driver", "EGL found no usable GPU display" + (" ({name})" if name else ""), 83,
               "EGL, which renderers use without a window (MuJoCo's and Habitat's EGL backends, nvdiffrast, Isaac), could "
               "not initialise a display on the NVIDIA GPU" + (": {name} is egl.h's code for it" if name else "") +
               ". The EGL library in use is not the NVIDIA driver's (libglvnd picked Mesa's, which sees no GPU, or the "
               "driver was installed without its GL/EGL part), or in a container the runtime did not mount the "
               "driver's graphics libraries.",
               fix="Check `ls /usr/share/glvnd/egl_vendor.d/` lists 10_nvidia.json and that libEGL_nvidia.so.0 is there "
                   "(`ldconfig -p | grep EGL_nvidia`): install the driver with its GL libraries (Ubuntu: "
                   "libnvidia-gl-<version>, matching the kernel driver), or reinstall the driver; choose the device "
                   "platform (MUJOCO_GL=egl, PYOPENGL_PLATFORM=egl, EGL_DEVICE_ID for the GPU). In a container, start it "
                   "with `-e NVIDIA_DRIVER_CAPABILITIES=all` (or compute,utility,graphics) so the runtime mounts them." +
                   (_NVDIFFRAST_CUDA if _NVDIFFRAST.search(text) else ""),
               areas=("driver",), sources=(_EGL_H, _CAPS_DOC))
    return _match(sig, text, at, {"name": name})


# nvdiffrast (NVlabs) renders with OpenGL through EGL (RasterizeGLContext) and hands buffers to CUDA through the
# CUDA-OpenGL interop (cudaGraphics* calls); its RasterizeCudaContext needs neither
_NVDIFFRAST = re.compile(r"nvdiffrast|glutil\.cpp|RasterizeGLContext|cudaGraphics(?:MapResources|GLRegister)")
_NVDIFFRAST_CUDA = (" With nvdiffrast, its CUDA rasterizer needs no OpenGL or EGL at all: `dr.RasterizeCudaContext()` "
                    "instead of `dr.RasterizeGLContext()` (threestudio: system.renderer.context_type=cuda).")
_GL_INTEROP = re.compile(r"Cuda error: (?P<code>\d{1,4})\s{0,2}\[(?P<call>cudaGraphics\w{2,40})\(")


def gl_interop_failed(ent, text):
    m, at = last_in_tail(_GL_INTEROP, text, "cudaGraphics")
    if m is None:
        return None
    sig = _sig("cuda-opengl-interop-failed", "driver",
               "CUDA's OpenGL interop failed ({call}, CUDA error {code})", 84,
               "The renderer draws with OpenGL and maps its buffers into CUDA ({call}); that interop between the "
               "graphics driver's OpenGL (through EGL or GLX) and CUDA failed: the OpenGL context is not the NVIDIA "
               "driver's (Mesa's, a remote or virtual display), or the driver's graphics and CUDA parts differ.",
               fix="Use a rasterizer without OpenGL where there is one (nvdiffrast: `dr.RasterizeCudaContext()`); "
                   "otherwise make the NVIDIA driver's OpenGL/EGL the one in use (its GL libraries installed with the "
                   "same version as the kernel driver; in a container NVIDIA_DRIVER_CAPABILITIES including graphics) "
                   "and update the driver.",
               areas=("driver",), sources=(_CAPS_DOC,))
    return _match(sig, text, at, {"code": m.group("code"), "call": m.group("call")})


_GL_LIB_MISSING = re.compile(r"(?i)(?:lib(?:EGL|OpenGL|GLX|GLESv2)(?:_nvidia)?\.so(?:\.\d{1,3})?)[^\n]{0,40}(?:cannot open "
                             r"shared object file|not found|no such file)|[Mm]issing lib(?:EGL|OpenGL|GLX)\b")


def gl_libraries_missing(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_GL_LIB_MISSING, tail)
    if m is None:
        return None
    container = in_container(ent, text)
    sig = _sig("gl-libraries-missing", "container" if container else "driver",
               "the EGL/OpenGL libraries are missing" + (" in the container" if container else ""), 82,
               ("A container gets the driver's graphics libraries (libEGL_nvidia, libGLX_nvidia) only when its driver "
                "capabilities include graphics, and the dispatch libraries (libEGL.so.1, libOpenGL.so.0 from libglvnd) "
                "only from its image; CUDA images carry neither by default." if container else
                "libEGL.so.1 / libOpenGL.so.0 are libglvnd's dispatch libraries, which load the driver's own "
                "(libEGL_nvidia, libGLX_nvidia); one of them is not installed."),
               fix=("Start the container with `-e NVIDIA_DRIVER_CAPABILITIES=all` (or compute,utility,graphics) and "
                    "install libglvnd in the image (`apt-get install libglvnd0 libegl1 libopengl0 libgl1`, or build on "
                    "nvidia/opengl / a cudagl image); never install the driver inside the image." if container else
                    "Install libglvnd's libraries (`sudo apt-get install libegl1 libopengl0 libgl1`) and the driver's "
                    "GL part (libnvidia-gl-<version>, matching the kernel driver)."),
               areas=("driver",), sources=(_CAPS_DOC,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# a CUDA version as the runtime API encodes it (1000 * major + 10 * minor): "CUDA driver version is 11020, expected at
# least 11040" (Isaac Gym's check); Omniverse RTX's own driver range check
_DRIVER_NUMBER = re.compile(r"CUDA driver version is (?P<have>\d{4,6}),? expected at least (?P<need>\d{4,6})")
_RTX_DRIVER = re.compile(r"installed NVIDIA graphics driver is unsupported or has known issues|rtx driver verification failed")
_RECOMMENDED = re.compile(r"recommended drivers?:?\s{0,3}(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)")


def _cuda_of(n: str) -> str:
    v = int(n)
    return f"{v // 1000}.{(v % 1000) // 10}"


def driver_below_component_floor(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DRIVER_NUMBER, tail)
    if m is not None:
        have, need = _cuda_of(m.group("have")), _cuda_of(m.group("need"))
        drv = min_driver_for_cuda(need) or {}
        sig = _sig("driver-below-component-cuda", "driver",
                   "the driver supports CUDA {have}; the component needs CUDA {need}", 85,
                   "The numbers are CUDA versions as the runtime encodes them (1000 x major + 10 x minor): the installed "
                   "driver supports CUDA {have}, and the component was built with CUDA {need}, which needs a newer "
                   "driver.",
                   fix="Update the NVIDIA driver to one that supports CUDA {need}" +
                       (" ({driver} or newer on Linux)" if drv.get("toolkit_minimum") else "") +
                       " (`nvidia-smi` prints the CUDA version a driver supports), or use the component's build for CUDA "
                       "{have}.",
                   areas=("driver",),
                   sources=({"url": "https://docs.nvidia.com/deploy/cuda-compatibility/",
                             "what": "CUDA compatibility: the minimum driver for each CUDA release"},))
        return _match(sig, text, len(text) - len(tail) + m.start(),
                      {"have": have, "need": need, "driver": drv.get("toolkit_minimum")})
    r = last_match(_RTX_DRIVER, tail)
    if r is None:
        return None
    rec = _RECOMMENDED.search(tail)
    sig = _sig("rtx-driver-unsupported", "driver", "Omniverse RTX refuses the installed NVIDIA driver", 84,
               "Omniverse's RTX renderer (Isaac Sim, Isaac Lab) checks the driver against its own supported range and "
               "stops on one below it or with known issues.",
               fix="Install the driver it recommends" + (" ({rec})" if rec else "") + " or a newer one of a supported "
                   "branch (cloud images: one whose driver is in range), reboot, and check `nvidia-smi`.",
               areas=("driver",),
               sources=({"url": "https://docs.isaacsim.omniverse.nvidia.com/latest/installation/requirements.html",
                         "what": "Isaac Sim requirements: the supported NVIDIA driver versions"},))
    return _match(sig, text, len(text) - len(tail) + r.start(), {"rec": rec.group("v") if rec else None})
