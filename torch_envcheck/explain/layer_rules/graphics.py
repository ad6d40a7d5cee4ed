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
    egl_device_for_cuda_missing  Magnum's "unable to find CUDA device N among M EGL devices" -> env: the EGL device
                         chosen by index instead, or the driver's EGL exposing the CUDA device
    egl_platform_device_missing  MuJoCo's "Cannot initialize a EGL device display ... PLATFORM_DEVICE extension" -> env:
                         MUJOCO_GL=osmesa / glfw, or the NVIDIA driver's EGL
    gl_error_code        an OpenGL error code (Khronos' gl.h: 1280 GL_INVALID_ENUM, ...) -> the OpenGL context in use
                         (the renderer: a software one or an old driver lacks what the program asks)
    physx_gpu_launch_failed  PhysX's GPU pipeline failing to launch its kernels (Pxg...: "fail to launch kernel") ->
                         not-environment: the scene's GPU buffers (fewer environments, larger PhysX capacities)
    egl_library_unloadable  PyOpenGL's or vispy's "Unable to load EGL library": EGL asked for (PYOPENGL_PLATFORM=egl,
                         MUJOCO_GL=egl) where no libEGL loads -> macOS (dyld's words): EGL is no part of macOS; Windows:
                         no EGL either; a container: libglvnd in the image; Linux: libegl1 and the driver's EGL, or
                         another platform (env)
    egl_devices_lack_gpu  EGL enumerates fewer devices than asked for (MuJoCo's MUJOCO_EGL_DEVICE_ID range) or none
                         that is the active CUDA device (DIRT) -> driver: the NVIDIA driver's EGL is not installed
    gl_dev_library_for_linker  "cannot find -lEGL" (-lGL, -lGLESv2, -lOpenGL, -lGLX) -> toolchain: the
                         development package with the unversioned library (libegl1-mesa-dev, libgl1-mesa-dev, ...)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, in_container, last_in_tail, on_windows
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

# (PyOpenGL prints a failed EGL call as GLError(err = 12290, baseOperation = eglInitialize, ...), the code in decimal;
# Magnum's windowless applications name the code after "cannot get default EGL display")
_EGL_FAILED = re.compile(r"\berr = (?P<dec>12[23]\d\d),\s{0,8}baseOperation = egl\w{3,40}|"
                         r"(?P<nodisplay>cannot get (?:the )?default EGL display|Unable to create windowless context)|"
                         r"egl(?:Initialize|GetDisplay|MakeCurrent)\(?\)?[^\n]{0,30}(?:failed|error)|"
                         r"EGL error[^\n]{0,40}?(?:code:?\s{0,2}"
                         r"(?P<num>0x300[0-9A-Ea-e]|12[23]\d\d)\b)|\b(?P<name>EGL_(?:NOT_INITIALIZED|BAD_[A-Z_]{3,20}))\b")
_EGL_CODE_NAME = re.compile(r"\b(EGL_(?:NOT_INITIALIZED|BAD_[A-Z_]{3,20}))\b")


def egl_error(ent, text):
    m, at = last_in_tail(_EGL_FAILED, text)
    if m is None:
        return None
    name = m.group("name")
    if m.group("num") or m.group("dec"):
        raw = m.group("num") or m.group("dec")
        name = EGL_ERRORS.get(int(raw, 16) if raw.lower().startswith("0x") else int(raw))
    if m.group("nodisplay"):
        # the code the windowless application names, whichever it is, came from getting the display
        code = last_match(_EGL_CODE_NAME, text[max(0, at - 300):at + 200])
        name = code.group(1) if code else None
    elif name is not None and name not in _NO_DISPLAY:
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


_MAGNUM = {"url": "https://doc.magnum.graphics/magnum/classMagnum_1_1Platform_1_1WindowlessEglApplication.html",
           "what": "Magnum's WindowlessEglApplication: --magnum-device (EGL device index) and --magnum-cuda-device"}
_EGL_CUDA_DEVICE = re.compile(r"unable to find CUDA device (?P<dev>\d{1,3}) among (?P<n>\d{1,3}) EGL devices")


def egl_device_for_cuda_missing(ent, text):
    m, at = last_in_tail(_EGL_CUDA_DEVICE, text, "EGL devices")
    if m is None:
        return None
    sig = _sig("egl-device-for-cuda-missing", "env", "none of the {n} EGL devices is CUDA device {dev}", 84,
               "The windowless renderer (Magnum's EGL application, under habitat-sim and others) picks the EGL device "
               "that is CUDA device {dev}, through the NVIDIA driver's EGL (EGL_NV_device_cuda). Of the {n} EGL "
               "devices here none is: the machine has no NVIDIA GPU that CUDA sees (a laptop's integrated graphics, "
               "Mesa's devices), CUDA_VISIBLE_DEVICES renumbered the GPUs, or the driver's EGL library is not the one "
               "loaded.",
               fix="Choose the GPU by its EGL index, not by CUDA device (habitat-sim: gpu_device_id in the simulator's "
                   "config, -1 for none; Magnum: --magnum-device N instead of --magnum-cuda-device), or, for rendering "
                   "on the NVIDIA GPU, check `nvidia-smi` lists it and that the driver's EGL is installed "
                   "(/usr/share/glvnd/egl_vendor.d/10_nvidia.json, libEGL_nvidia.so.0).",
               areas=("driver",), sources=(_MAGNUM, _EGL_H))
    return _match(sig, text, at, {"dev": m.group("dev"), "n": m.group("n")})


_DM_CONTROL = {"url": "https://github.com/google-deepmind/dm_control#rendering",
               "what": "dm_control / MuJoCo rendering backends: MUJOCO_GL=glfw|egl|osmesa"}
# (the same refusal printed with an EGL code instead, "Cannot initialize a EGL device display. EGL_NOT_INITIALIZED", is
# egl_error's: the driver's EGL)
_PLATFORM_DEVICE = re.compile(r"does not support the PLATFORM_DEVICE extension")


def egl_platform_device_missing(ent, text):
    m, at = last_in_tail(_PLATFORM_DEVICE, text, "PLATFORM_DEVICE")
    if m is None:
        return None
    sig = _sig("egl-platform-device-missing", "env", "MuJoCo's EGL backend found no EGL device to render on", 84,
               "With MUJOCO_GL=egl, MuJoCo (and dm_control, robosuite, Gymnasium's MuJoCo environments) renders "
               "headless through an EGL device display, which needs an EGL with the device-platform extension: the "
               "NVIDIA driver's. The EGL loaded here has none (Mesa's without a GPU it drives, a machine without the "
               "NVIDIA driver's GL part, a container without the graphics capability).",
               fix="Pick the backend the machine has: MUJOCO_GL=osmesa (software, headless; with "
                   "PYOPENGL_PLATFORM=osmesa and libosmesa installed) or MUJOCO_GL=glfw with a display (or under xvfb-"
                   "run); for GPU rendering keep MUJOCO_GL=egl and install the NVIDIA driver's EGL "
                   "(libnvidia-gl-<version>; /usr/share/glvnd/egl_vendor.d/10_nvidia.json), in a container with "
                   "NVIDIA_DRIVER_CAPABILITIES=all.",
               areas=("driver",), sources=(_DM_CONTROL, _CAPS_DOC))
    return _match(sig, text, at, {})


# OpenGL's error codes (Khronos' gl.h / glcorearb.h): name by value
GL_ERRORS = {0x0500: "GL_INVALID_ENUM", 0x0501: "GL_INVALID_VALUE", 0x0502: "GL_INVALID_OPERATION",
             0x0503: "GL_STACK_OVERFLOW", 0x0504: "GL_STACK_UNDERFLOW", 0x0505: "GL_OUT_OF_MEMORY",
             0x0506: "GL_INVALID_FRAMEBUFFER_OPERATION", 0x0507: "GL_CONTEXT_LOST"}
_GL_H = {"url": "https://registry.khronos.org/OpenGL/api/GL/glcorearb.h", "what": "Khronos OpenGL API header: error codes"}
_GL_ERROR = re.compile(r"(?i)\bOpenGL Error\s{0,2}\(?\s{0,2}(?P<dec>12[89]\d)\b|\bGL ?error[^\n]{0,20}?\b(?P<hex>0x050[0-7])\b|"
                       r"\bglGetError\(\)[^\n]{0,30}?\b(?P<dec2>12[89]\d)\b")


def gl_error_code(ent, text):
    m, at = last_in_tail(_GL_ERROR, text)
    if m is None:
        return None
    raw = m.group("dec") or m.group("dec2") or m.group("hex")
    name = GL_ERRORS.get(int(raw, 16) if raw.lower().startswith("0x") else int(raw))
    if name is None or name in ("GL_STACK_OVERFLOW", "GL_STACK_UNDERFLOW"):
        return None
    if name == "GL_OUT_OF_MEMORY":
        sig = _sig("gl-out-of-memory", "not-environment", "OpenGL ran out of memory ({name})", 70,
                   "The OpenGL context could not allocate what the program asked (textures, buffers, a framebuffer "
                   "this large): the workload's size, not the installation.",
                   look_at="Render smaller (resolution, batch of views) or free GPU memory other processes hold "
                           "(`nvidia-smi`).", sources=(_GL_H,))
        return _match(sig, text, at, {"name": name})
    sig = _sig("gl-context-lacks-feature", "driver", "OpenGL refused a call ({name}): the context in use lacks it", 66,
               "{name} is gl.h's code for a call the OpenGL context does not accept. A program that runs elsewhere "
               "gets it when the context is not the one it was written for: a software renderer (llvmpipe, Mesa "
               "without a GPU), an old driver with an older OpenGL version, or off-screen (pbuffer, EGL) rendering the "
               "driver does not support.",
               fix="See which renderer and OpenGL version the program gets: `glxinfo -B` (or `eglinfo`; over SSH or in "
                   "a container there may be none): the NVIDIA driver's OpenGL must be in use (its GL libraries of the "
                   "same version as the kernel driver); where off-screen rendering is not supported, render in a "
                   "window (the program's on-screen or safe mode) or under xvfb-run.",
               areas=("driver",), sources=(_GL_H,))
    return _match(sig, text, at, {"name": name})


_PHYSX = re.compile(r"Pxg\w{2,60}\.cpp \(\d{1,6}\) : internal error : [^\n]{0,120}?fail(?:ed)? to launch kernel|"
                    r"PhysX Internal CUDA error|GPU \w{2,60} fail(?:ed)? to launch kernel")
_PHYSX_CFG = {"url": "https://isaac-sim.github.io/IsaacLab/main/source/api/lab/isaaclab.sim.html",
              "what": "Isaac Lab PhysxCfg: the GPU pipeline's buffer capacities (gpu_max_rigid_contact_count, ...)"}


def physx_gpu_launch_failed(ent, text):
    m, at = last_in_tail(_PHYSX, text)
    if m is None:
        return None
    sig = _sig("physx-gpu-launch-failed", "not-environment", "PhysX's GPU simulation failed to launch its kernels", 80,
               "PhysX's GPU pipeline (under Isaac Gym, Isaac Sim / Isaac Lab) reports a kernel it could not launch; "
               "it follows its buffers overflowing (more contacts or pairs than the scene's capacities) or the GPU "
               "running out of memory with many environments, and after it the CUDA context is broken (illegal "
               "memory access in what runs next). The installation is not at fault.",
               look_at="Run fewer environments (num_envs) or a simpler scene, or raise PhysX's GPU capacities in the "
                       "simulation config (Isaac Gym: physx.max_gpu_contact_pairs, default_buffer_size_multiplier; Isaac "
                       "Lab: PhysxCfg's gpu_max_rigid_contact_count, gpu_found_lost_pairs_capacity and the other gpu_* "
                       "sizes); watch memory with `nvidia-smi`.",
               sources=(_PHYSX_CFG,))
    return _match(sig, text, at, {})


# PyOpenGL (OpenGL/platform/egl.py) and vispy (vispy/ext/egl.py) raise "Unable to load EGL library" when their
# platform is EGL and no libEGL loads; the loader's own words follow it and say where it ran: dyld's "dlopen(EGL, 10):
# image not found" is macOS's
_EGL_UNLOADABLE = re.compile(r"Unable to load EGL library|Could not (?:load|find) (?:the )?EGL library")
_DYLD = re.compile(r"dlopen\([^)\n]{1,200}\):? (?:image not found|Library not loaded|no suitable image)|\.dylib\b")
_PYOPENGL = {"url": "https://github.com/mcfletch/pyopengl/blob/master/OpenGL/platform/egl.py",
             "what": "PyOpenGL's EGL platform (PYOPENGL_PLATFORM=egl) loads libEGL or raises 'Unable to load EGL library'"}


def egl_library_unloadable(ent, text):
    m, at = last_in_tail(_EGL_UNLOADABLE, text, "EGL library")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if ent.platform.get("macos") or _DYLD.search(tail):
        sig = _sig("egl-on-macos", "macos", "EGL was asked for on macOS, which has none", 84,
                   "The program (PyOpenGL with PYOPENGL_PLATFORM=egl, vispy's or pyrender's EGL backend, MUJOCO_GL=egl) "
                   "loads EGL for rendering without a window. EGL is not available on macOS: it is a Linux library "
                   "(Mesa's, or the NVIDIA driver's), and macOS renders through its own OpenGL (CGL).",
                   fix="On macOS do not choose EGL: unset PYOPENGL_PLATFORM (and MUJOCO_GL=egl), and use another "
                       "backend (glfw or a Qt backend with a window; osmesa, from Homebrew's mesa, for software rendering "
                       "without one); headless GPU rendering with EGL needs a Linux machine.",
                   areas=("platform",), sources=(_PYOPENGL,))
        return _match(sig, text, at, {})
    if on_windows(ent, text):
        layer, title = "env", "EGL was asked for on Windows, which has none"
        why = ("EGL is a Linux library (Mesa's, or the NVIDIA driver's): Windows renders through WGL, so a script that "
               "sets PYOPENGL_PLATFORM=egl (or MUJOCO_GL=egl) for headless Linux servers fails there.")
        fix = ("Remove the line that sets PYOPENGL_PLATFORM=egl (os.environ['PYOPENGL_PLATFORM'] = 'egl') or MUJOCO_GL=egl "
               "on Windows, restart the Python process (the notebook's kernel), and let PyOpenGL use its Windows "
               "platform; for rendering without a window on Windows use the program's offscreen option or run it "
               "under WSL 2 / Linux.")
    elif in_container(ent, text):
        layer, title = "container", "the container has no EGL library to load"
        why = ("libEGL.so.1 (libglvnd's dispatch library) comes from the image and the NVIDIA driver's EGL "
               "(libEGL_nvidia.so.0) from the runtime, which mounts it only with the graphics capability; CUDA images "
               "carry neither by default.")
        fix = ("Install libglvnd's EGL in the image (`apt-get install libglvnd0 libegl1`) and start the container with "
               "`-e NVIDIA_DRIVER_CAPABILITIES=all` (or compute,utility,graphics); or choose another platform "
               "(PYOPENGL_PLATFORM=osmesa with libosmesa6).")
    else:
        layer, title = "env", "EGL was asked for and no libEGL loads"
        why = ("The program chose EGL for rendering without a window (PYOPENGL_PLATFORM=egl, MUJOCO_GL=egl, pyrender's "
               "or vispy's EGL backend) and the loader finds no libEGL.so.1 here: libglvnd's EGL is not installed "
               "(a minimal server or image), or the platform variable was set by a script meant for another machine.")
        fix = ("For headless GPU rendering install EGL (`sudo apt-get install libegl1`, and the NVIDIA driver's GL part: "
               "libnvidia-gl-<version>, matching the kernel driver); otherwise unset PYOPENGL_PLATFORM (or MUJOCO_GL) to "
               "use a display, or set PYOPENGL_PLATFORM=osmesa (with libosmesa6) for software rendering.")
    sig = _sig("egl-library-unloadable", layer, title, 82, why, fix=fix, areas=("driver",),
               sources=(_PYOPENGL, _CAPS_DOC))
    return _match(sig, text, at, {})


# EGL's device enumeration (EGL_EXT_device_enumeration) lists the GPUs only through the NVIDIA driver's EGL; Mesa's
# lists its software device.  MuJoCo checks MUJOCO_EGL_DEVICE_ID against the count (mujoco/egl/__init__.py); DIRT
# looks for the EGL device of the active CUDA device (EGL_CUDA_DEVICE_NV)
_EGL_FEW_DEVICES = re.compile(r"MUJOCO_EGL_DEVICE_ID environment variable must be an integer between 0 and "
                              r"(?P<hi>\d{1,3}) \(inclusive\), got (?P<got>\d{1,3})|"
                              r"none of (?P<n>\d{1,3}) egl devices matches the active cuda device")
_MUJOCO_EGL = {"url": "https://github.com/google-deepmind/mujoco/blob/main/python/mujoco/egl/__init__.py",
               "what": "MuJoCo's EGL backend: MUJOCO_EGL_DEVICE_ID indexes the EGL devices eglQueryDevicesEXT lists"}


def egl_devices_lack_gpu(ent, text):
    m, at = last_in_tail(_EGL_FEW_DEVICES, text)
    if m is None:
        return None
    count = int(m.group("hi")) + 1 if m.group("hi") is not None else int(m.group("n"))
    sig = _sig("egl-devices-lack-gpu", "driver",
               "EGL lists {count} device(s), none of them the GPU asked for", 84,
               "Headless rendering picks an EGL device: " +
               ("MuJoCo checks MUJOCO_EGL_DEVICE_ID={got} against the {count} EGL device(s) listed" if m.group("hi")
                is not None else "the renderer looks for the EGL device of the active CUDA device among {count}") +
               ". EGL lists the NVIDIA GPUs only through the NVIDIA driver's EGL library (libEGL_nvidia.so.0, "
               "registered by /usr/share/glvnd/egl_vendor.d/10_nvidia.json); without it only Mesa's devices are "
               "there. The driver was installed without its GL/EGL part (a runfile with --no-opengl-files, a "
               "compute-only or headless package), or a container was started without the graphics capability.",
               fix="Install the NVIDIA driver's GL/EGL libraries for the running driver (Ubuntu: "
                   "libnvidia-gl-<version>, the same version as `nvidia-smi` shows; or reinstall the driver from the "
                   "distribution's packages), check `ls /usr/share/glvnd/egl_vendor.d/` lists 10_nvidia.json; in a "
                   "container use `-e NVIDIA_DRIVER_CAPABILITIES=all`. MUJOCO_EGL_DEVICE_ID counts EGL devices, which "
                   "CUDA_VISIBLE_DEVICES does not renumber.",
               areas=("driver",), sources=(_MUJOCO_EGL, _EGL_H, _CAPS_DOC))
    return _match(sig, text, at, {"count": count, "got": m.group("got")})


# GNU ld's "cannot find -lEGL": the build links the unversioned development name (libEGL.so), which only the
# development packages install; nvdiffrast's Dockerfile installs the set (libglvnd-dev, libgl1-mesa-dev,
# libegl1-mesa-dev, libgles2-mesa-dev)
_GL_LINK = re.compile(r"(?:cannot|can not|can't) find -l(?P<lib>EGL|GLESv2|GLESv1_CM|OpenGL|GLX|GL)\b")
_GL_DEV = {"EGL": "libegl1-mesa-dev", "GLESv2": "libgles2-mesa-dev", "GLESv1_CM": "libgles2-mesa-dev",
           "OpenGL": "libglvnd-dev", "GLX": "libglvnd-dev", "GL": "libgl1-mesa-dev"}
_NVDIFFRAST_DOCKER = {"url": "https://github.com/NVlabs/nvdiffrast/blob/1f95925cdad6e792961f0d4a077950bb14b785d8/docker/Dockerfile",
                      "what": "the EGL/OpenGL development packages a build needs on Debian/Ubuntu (libglvnd-dev, "
                              "libgl1-mesa-dev, libegl1-mesa-dev, libgles2-mesa-dev)"}


def gl_dev_library_for_linker(ent, text):
    m, at = last_in_tail(_GL_LINK, text, "find -l")
    if m is None:
        return None
    lib = m.group("lib")
    sig = _sig("gl-dev-library-for-linker", "toolchain", "the linker finds no lib{lib}.so to link against", 82,
               "The build links against lib{lib} (-l{lib}) and the linker finds no lib{lib}.so, the unversioned "
               "development name: the runtime packages install only lib{lib}.so.N, the development package adds the "
               "link (and the headers).",
               fix="Install the development package that holds lib{lib}.so: Debian/Ubuntu `sudo apt-get install {pkg} "
                   "libglvnd-dev` (other distributions: their libglvnd / Mesa EGL and OpenGL -devel packages); then "
                   "build again.",
               areas=("toolchain",), sources=(_NVDIFFRAST_DOCKER,))
    return _match(sig, text, at, {"lib": lib, "pkg": _GL_DEV[lib]})
