"""explain's sixty-seventh round, from test76's to test79's misses (notebooks, the CUDA toolkit itself, 3D vision's
CUDA extensions, NCCL): notebook front ends' messages, __mp_main__ under spawn, the toolkit's installers and PATH, the
linker's two sonames, ptxas missing, extensions' sources and setup scripts, NCCL's transports and symbol versions,
CUDA's OpenGL interop. The texts are written for these tests from each tool's own messages, not copied from the
corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_colab_restart_after_install_names_the_restart_and_the_packages():
    r = diagnose.diagnose("WARNING: The following packages were previously imported in this runtime:\n  [numpy]\n"
                          "You must restart the runtime in order to use newly installed versions.")
    assert r["signature"] == "notebook-restart-after-install" and r["layer"] == "env"
    assert "Restart" in _fix(r) and "numpy" in r["title"]


def test_ipythons_pip_magic_note_is_the_same_reading():
    r = diagnose.diagnose("Successfully installed transformers-4.46.0\n"
                          "Note: you may need to restart the kernel to use updated packages.")
    assert r["signature"] == "notebook-restart-after-install"


def test_colabs_warning_about_the_kernels_own_packages():
    r = diagnose.diagnose("WARNING: Upgrading ipython, ipykernel, tornado, prompt-toolkit, pyzmq can\ncause your runtime "
                          "to repeatedly crash\nYou must restart the runtime in order to use newly installed versions.")
    assert "pyzmq" in _fix(r) and "ipykernel" in _fix(r)


def test_vscode_kernel_without_ipykernel():
    r = diagnose.diagnose("Running cells with 'venv (Python 3.11.4)' requires the ipykernel package.\n"
                          "Run the following command to install 'ipykernel' into the Python environment.")
    assert r["signature"] == "notebook-kernel-without-ipykernel" and r["layer"] == "env"
    assert "-m pip install -U ipykernel" in _fix(r) and "venv (Python 3.11.4)" in r["title"]


def test_a_class_the_spawned_child_cannot_find_on_mp_main_is_the_programs():
    r = diagnose.diagnose("AttributeError: Can't get attribute 'MyDataset' on <module '__mp_main__' from "
                          "'C:\\work\\train.py'>")
    assert r["signature"] == "pickle-for-workers" and r["layer"] == "not-environment"
    assert "top level" in _fix(r) and "num_workers=0" in _fix(r) and "__mp_main__" in r["explanation"]


def test_a_class_pickled_from_the_saving_scripts_main_keeps_the_checkpoint_reading():
    r = diagnose.diagnose('  File "load.py", line 3, in <module>\n    model = torch.load("model.pt")\n'
                          "AttributeError: Can't get attribute 'Net' on <module '__main__' from 'load.py'>")
    assert r["signature"] == "pickled-model-module-missing"


def test_a_packages_own_modules_of_two_releases_say_restart():
    r = diagnose.diagnose('  File "/usr/lib/python3/dist-packages/PIL/Image.py", line 9, in <module>\n'
                          '    from ._util import is_path\n'
                          "ImportError: cannot import name 'is_path' from 'PIL._util' "
                          "(/usr/lib/python3/dist-packages/PIL/_util.py)")
    assert r["signature"] == "package-files-of-two-releases" and "Restart" in _fix(r)
    assert "Pillow" in _fix(r) and "pip install --force-reinstall" in _fix(r)


def test_a_name_missing_for_the_callers_own_code_keeps_the_release_reading():
    r = diagnose.diagnose('  File "/home/u/app/train.py", line 2, in <module>\n    from peft import LoraModelX\n'
                          "ImportError: cannot import name 'LoraModelX' from 'peft' (/venv/lib/site-packages/peft/"
                          "__init__.py)")
    assert r["signature"] == "name-missing-from-package"


def test_apt_with_the_distributions_toolkit_beside_nvidias():
    r = diagnose.diagnose("The following packages have unmet dependencies:\n nvidia-cuda-toolkit : Depends: "
                          "nvidia-cuda-dev (= 12.0.140~12.0.1-4build4) but it is not going to be installed\n"
                          "E: Unmet dependencies. Try 'apt --fix-broken install' with no packages (or specify a solution).")
    assert r["signature"] == "apt-unmet-cuda-dependencies" and r["layer"] == "toolchain"
    assert "apt purge nvidia-cuda-toolkit" in _fix(r)


def test_apt_with_a_half_installed_cuda_package():
    r = diagnose.diagnose("The following packages have unmet dependencies:\n cuda-12-8 : Depends: cuda-runtime-12-8 "
                          "(>= 12.8.1) but it is not going to be installed\nE: Unmet dependencies.")
    assert r["signature"] == "apt-unmet-cuda-dependencies" and "apt-get -f install" in _fix(r)


def test_apt_among_driver_packages_is_the_drivers():
    r = diagnose.diagnose("The following packages have unmet dependencies:\n nvidia-driver-550 : Depends: "
                          "libnvidia-gl-550 (= 550.54.14-0ubuntu1) but 550.90.07-0ubuntu1 is to be installed\n"
                          "E: Unable to correct problems, you have held broken packages.")
    assert r["signature"] == "apt-unmet-cuda-dependencies" and r["layer"] == "driver"


def test_apt_without_cuda_packages_is_not_read():
    r = diagnose.diagnose("The following packages have unmet dependencies:\n python3-dev : Depends: libpython3-dev "
                          "(= 3.10.6-1~22.04) but it is not going to be installed")
    assert r["signature"] != "apt-unmet-cuda-dependencies"


@pytest.mark.parametrize("text, word", [
    ("build.sh: line 4: nvcc: command not found", "export PATH=/usr/local/cuda/bin"),
    ("nvcc : The term 'nvcc' is not recognized as the name of a cmdlet, function, script file, or operable program.",
     "%CUDA_PATH%\\bin"),
    ("'nvcc' is not recognized as an internal or external command,\noperable program or batch file.", "CUDA_PATH"),
    ("make: /usr/local/cuda/bin/nvcc: Command not found\nmake: *** [Makefile:12: kernel.o] Error 127", "ln -sfn"),
])
def test_nvcc_not_on_the_shells_path(text, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == "nvcc-not-on-path" and r["layer"] == "toolchain" and word in _fix(r)


def test_nvcc_not_found_under_sudo_names_secure_path():
    r = diagnose.diagnose("$ sudo sh make.sh\nmake.sh: 3: nvcc: not found")
    assert r["signature"] == "nvcc-not-on-path" and "secure_path" in _fix(r)


def test_the_windows_installers_visual_studio_integration():
    r = diagnose.diagnose("Installing CUDAVisualStudioIntegration ...\nCUDA Installer Failed")
    assert r["signature"] == "windows-cuda-installer-failed" and "Visual Studio Integration" in _fix(r)


def test_ld_linking_two_versions_of_one_library():
    r = diagnose.diagnose("/usr/bin/ld: warning: libcudart.so.11.0, needed by /opt/lib/libfoo.so, may conflict with "
                          "libcudart.so.12")
    assert r["signature"] == "linker-two-versions-of-a-library" and "Rebuild libfoo.so" in _fix(r)


@pytest.mark.parametrize("text, word", [
    ("RuntimeError: Cannot find ptxas.exe", "CUDA_HOME"),
    ("W external/xla/xla/service/gpu/nvptx_compiler.cc:70] Can't find ptxas binary in ${CUDA_DIR}/bin.", "XLA_FLAGS"),
])
def test_ptxas_missing_is_the_toolkits_not_the_gpus(text, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == "ptxas-not-found" and r["layer"] == "toolchain" and word in _fix(r)


def test_a_runfile_url_answering_404_is_not_the_machine():
    r = diagnose.diagnose("--2025-01-01--  https://developer.download.nvidia.com/compute/cuda/12.8.0/local_installers/"
                          "cuda_12.8.0_999.99.99_linux.run\nHTTP request sent, awaiting response... 404 Not Found\n"
                          "2025-01-01 10:00:00 ERROR 404: Not Found.")
    assert r["signature"] == "download-url-not-found" and r["layer"] == "not-environment"
    assert "cuda_12.8.0_999.99.99_linux.run" in r["title"]


def test_nvcc_option_of_a_newer_cuda_names_the_release():
    r = diagnose.diagnose("nvcc fatal   : Unknown option '--threads'")
    assert r["signature"] == "nvcc-older-than-build" and "11.2" in _fix(r)


def test_thrust_name_without_its_header():
    r = diagnose.diagnose('ops.cu(12): error: namespace "thrust" has no member "sort_by_key"')
    assert r["signature"] == "cuda-library-member-missing" and "thrust/sort.h" in _fix(r)


def test_cooperative_groups_member_of_newer_gpus_is_the_architecture():
    r = diagnose.diagnose("nvcc -gencode=arch=compute_60,code=sm_60 -c k.cu\n"
                          'k.cu(40): error: namespace "cooperative_groups" has no member "labeled_partition"')
    assert r["signature"] == "cuda-member-needs-newer-gpu" and r["layer"] == "arch"
    assert "7.0" in r["title"] and "sm_60" in r["title"]


def test_msvc_stl_refusing_an_older_cuda():
    r = diagnose.diagnose('yvals_core.h(902): error: static assertion failed with "error STL1002: Unexpected compiler '
                          'version, expected CUDA 12.4 or newer."')
    assert r["signature"] == "msvc-stl-rejects-compiler" and "CUDA 12.4 or newer" in _fix(r)


def test_an_extension_built_without_its_cuda_code_names_the_package():
    r = diagnose.diagnose('  File "/opt/conda/lib/python3.10/site-packages/detectron2/layers/nms.py", line 20, in '
                          "batched_nms\nRuntimeError: Not compiled with GPU support")
    assert r["signature"] == "extension-built-without-cuda" and "detectron2" in _fix(r) and "FORCE_CUDA=1" in _fix(r)


def test_tiny_cuda_nn_without_an_architecture():
    r = diagnose.diagnose('    raise EnvironmentError("Unknown compute capability. Specify the target compute '
                          'capabilities in the TCNN_CUDA_ARCHITECTURES environment variable")')
    assert r["signature"] == "tcnn-unknown-compute-capability" and "TCNN_CUDA_ARCHITECTURES=86" in _fix(r)


def test_a_package_refusing_this_torchs_version():
    r = diagnose.diagnose("ImportError: Kaolin requires PyTorch >=1.6.0, <=1.13.0, but found version 2.0.1 instead.")
    assert r["signature"] == "package-refuses-torch-version" and r["layer"] == "toolchain"
    assert "pip install torch'>=1.6.0,<=1.13.0'" in _fix(r) and "IGNORE_TORCH_VER" in _fix(r)


def test_nccl_ranks_on_two_transports():
    r = diagnose.diagnose("misc/socket.cc:484 NCCL WARN socketFinalizeAccept: wrong type 2 != 1")
    assert r["signature"] == "nccl-socket-wrong-type" and "NCCL_IB_DISABLE=1" in _fix(r)


def test_an_nccl_function_names_the_release_it_needs():
    r = diagnose.diagnose("./build/all_gather_perf: symbol lookup error: ./build/all_gather_perf: undefined symbol: "
                          "ncclCommSplit")
    assert r["signature"] == "nccl-older-than-caller" and r["layer"] == "libraries" and "2.18" in _fix(r)


def test_cuda_opengl_interop_under_nvdiffrast():
    r = diagnose.diagnose("RuntimeError: Cuda error: 999[cudaGraphicsMapResources(1, &s.cudaColorBuffer, stream);]")
    assert r["signature"] == "cuda-opengl-interop-failed" and r["layer"] == "driver"
    assert "RasterizeCudaContext" in _fix(r)


def test_nvdiffrast_egl_display_names_the_cuda_rasterizer():
    r = diagnose.diagnose("[F glutil.cpp:332] eglGetDisplay() failed")
    assert r["signature"] == "egl-no-display" and "RasterizeCudaContext" in _fix(r)
