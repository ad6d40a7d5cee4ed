"""Each rule fires on a snapshot that has its problem and stays silent on the healthy H100 snapshot."""

from __future__ import annotations


from torch_envcheck.doctor.report import findings_for
from torch_envcheck.doctor.rules import driver, extension, gpu, libraries, platform, toolchain, torch_rules

from _rules_helpers import by_code, codes, healthy, load

HEALTHY_CODES = {"TE100", "TE205", "TE300", "TE400", "TE500", "TE600", "TE700"}


def only(found, code):
    hits = by_code(found, code)
    assert len(hits) == 1, codes(found)
    return hits[0]


def test_healthy_snapshot_is_all_ok():
    found = findings_for(healthy())
    assert {f["code"] for f in found} == HEALTHY_CODES
    assert all(f["severity"] == "ok" for f in found)


# ------------------------------------------------------------------ platform

def test_wsl1():
    s = healthy(); s["platform"]["wsl"] = 1
    assert only(platform.wsl1(s), "TE101")["severity"] == "failure"
    assert platform.wsl1(healthy()) == []
    s["torch"].update(version="2.14.1+cpu", local="cpu", cuda=None)
    assert only(platform.wsl1(s), "TE101")["severity"] == "warning"


def test_wsl2_is_fine_and_uses_windows_driver_table():
    s = healthy(); s["platform"]["wsl"] = 2
    assert platform.wsl1(s) == []
    # 580.65.06 meets CUDA 13.0 on Linux but is below the Windows toolkit driver 580.88: only compat
    s["driver"]["version"] = "580.65.06"
    assert only(driver.driver_too_old(s), "TE304")["severity"] == "ok"


def test_macos_without_mps_warns():
    s = load("macos_apple_silicon")
    assert only(platform.macos(s), "TE102")["severity"] == "ok"
    s["torch"]["mps"] = {"built": True, "available": False}
    f = only(platform.macos(s), "TE102")
    assert f["severity"] == "warning" and "not available" in f["message"]
    assert platform.macos(healthy()) == []


def test_python_outside_release_range():
    s = healthy(); s["platform"]["python"]["version"] = "3.9.18"
    f = only(platform.python_range(s), "TE103")
    assert f["severity"] == "warning" and "3.10-3.15" in f["message"]
    assert platform.python_range(healthy()) == []


def test_python_too_old_for_any_current_torch_when_torch_missing():
    s = healthy(); s["torch"] = {"importable": False, "import_error": "ModuleNotFoundError: No module named 'torch'"}
    s["platform"]["python"]["version"] = "3.8.10"
    f = only(platform.python_range(s), "TE103")
    assert f["severity"] == "failure" and f["details"]["newest_release_for_this_python"] == "2.4"


# ------------------------------------------------------------------ torch

def test_torch_not_importable_shows_interpreter_and_error():
    s = healthy(); s["torch"] = {"importable": False, "import_error": "ModuleNotFoundError: No module named 'torch'"}
    s["platform"]["python"]["executable"] = "/usr/bin/python3"
    f = only(torch_rules.not_importable(s), "TE201")
    assert f["severity"] == "failure" and "/usr/bin/python3" in f["message"]
    assert f["details"]["import_error"].startswith("ModuleNotFoundError")
    # torch 2.15.0's cu132 build (PyPI, Linux x86_64) is the newest that runs this H100 on its CUDA 13.0 driver
    assert f["fix"].startswith("/usr/bin/python3 -m pip install") and f["fix"].endswith("/whl/cu132")
    assert torch_rules.not_importable(healthy()) == []


def test_torch_broken_import_is_reported_verbatim():
    s = healthy(); s["torch"] = {"importable": False, "import_error": "OSError: libcudnn.so.9: cannot open shared object file"}
    f = only(torch_rules.not_importable(s), "TE201")
    assert "libcudnn.so.9" in f["message"]


def test_cpu_wheel_with_and_without_gpu():
    s = healthy(); s["torch"].update(version="2.14.1+cpu", local="cpu", cuda=None, cudnn=None, arch_list=[],
                                     cuda_available=False, device_count=0, devices=[])
    f = only(torch_rules.cpu_wheel(s), "TE202")
    assert f["severity"] == "failure" and "H100" in f["message"] and f["fix"].endswith("/whl/cu130")
    s["driver"] = {"present": False, "gpus": []}
    assert only(torch_rules.cpu_wheel(s), "TE203")["severity"] == "ok"
    assert torch_rules.cpu_wheel(healthy()) == []


def test_companion_from_another_cuda_index():
    s = healthy(); s["packages"]["torchvision"]["version"] = "0.29.1+cu126"
    f = only(torch_rules.companions(s), "TE204")
    assert f["severity"] == "failure" and "cu126" in f["message"] and "cu130" in f["message"]
    assert f["fix"].endswith("--no-deps 'torchvision==0.29.*' --index-url https://download.pytorch.org/whl/cu130")
    s = healthy(); s["packages"]["torchaudio"] = {"version": "2.14.1+cpu"}
    assert "cpu" in only(torch_rules.companions(s), "TE204")["message"]
    assert torch_rules.companions(healthy()) == []


def test_companion_for_another_torch_release():
    s = healthy(); s["packages"]["torchvision"]["version"] = "0.20.1+cu130"
    assert "torchvision 0.29" in only(torch_rules.companions(s), "TE204")["message"]


# ------------------------------------------------------------------ driver

def test_driver_missing_only_for_cuda_builds():
    s = load("devbox_cuda_wheel_no_driver")
    assert only(driver.driver_missing(s), "TE301")["severity"] == "warning"  # no PCI fact: GPU unknown
    s["driver"]["pci_gpus"] = [{"bus_id": "0000:01:00.0", "device_id": "0x2684", "class": "0x030000"}]
    assert only(driver.driver_missing(s), "TE301")["severity"] == "failure"
    assert driver.driver_missing(healthy()) == []
    assert driver.driver_missing(load("cpu_venv_no_gpu")) == []
    assert driver.driver_missing(load("wsl1_cu130")) == [], "WSL 1 is the cause there (TE101)"


def test_driver_missing_on_wsl2_points_to_windows_driver():
    s = load("devbox_cuda_wheel_no_driver"); s["platform"]["wsl"] = 2
    assert "Windows" in only(driver.driver_missing(s), "TE301")["explanation"]
    # WSL 2's GPU is not on the Linux PCI bus: an empty bus there says nothing, the wording stays open
    s["driver"]["pci_gpus"] = []
    f = only(driver.driver_missing(s), "TE301")
    assert "If this machine has an NVIDIA GPU" in f["explanation"] and "no NVIDIA GPU" not in f["message"]


def test_driver_missing_with_an_unknown_pci_bus_keeps_both_remedies():
    s = load("devbox_cuda_wheel_no_driver"); s["driver"]["pci_gpus"] = None
    f = only(driver.driver_missing(s), "TE301")
    assert f["severity"] == "warning"
    assert "If this machine has an NVIDIA GPU" in f["explanation"] and "If it has none" in f["explanation"]
    assert f["fix"].startswith("# only if this machine has no NVIDIA GPU")


def test_driver_too_old_windows_table():
    s = load("windows_cpu_wheel_rtx4070")
    s["torch"].update(version="2.14.1+cu130", local="cu130", cuda="13.0", cuda_available=False)
    s["driver"].update(version="566.36", cuda_version="12.7")
    f = only(driver.driver_too_old(s), "TE302")
    assert "566.36" in f["message"] and "/whl/cu126" in f["fix"]
    assert driver.driver_too_old(healthy()) == []


def test_driver_minor_version_compat_is_ok_with_note():
    s = healthy(); s["torch"].update(version="2.14.1+cu126", local="cu126", cuda="12.6")
    s["driver"].update(version="550.127.05", cuda_version="12.4")
    f = only(driver.driver_too_old(s), "TE304")
    assert f["severity"] == "ok" and "560.28.03" in f["explanation"]


def test_cuda_init_failed_quotes_the_error():
    s = healthy(); s["torch"].update(cuda_available=False, device_count=0, devices=[],
                                     cuda_init_error="CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW")
    f = only(driver.cuda_init_failed(s), "TE303")
    assert "Error 804" in f["message"] and "forward-compatibility" in f["explanation"]
    assert driver.cuda_init_failed(healthy()) == []
    s["env"]["CUDA_VISIBLE_DEVICES"] = ""
    assert not by_code(findings_for(s), "TE303"), "TE402 hides it"
    assert by_code(findings_for(s), "TE402")


# ------------------------------------------------------------------ gpu

def test_arch_sass_and_ptx_semantics():
    s = healthy()
    s["torch"]["arch_list"] = ["sm_80", "sm_90", "compute_90"]
    s["torch"]["devices"][0].update(name="NVIDIA RTX PRO 6000 Blackwell", capability="12.0")
    assert gpu.arch_unsupported(s) == [], "compute_90 PTX JITs on 12.0"
    assert "compute_90" in only(gpu.gpu_ok(s), "TE400")["message"]
    s["torch"]["arch_list"] = ["sm_80", "sm_90"]
    assert only(gpu.arch_unsupported(s), "TE401")["details"]["problem"] == "too new"
    s["torch"]["devices"][0]["capability"] = "8.6"  # sm_80 SASS runs on 8.6
    assert gpu.arch_unsupported(s) == []
    s["torch"]["arch_list"] = ["sm_86"]
    s["torch"]["devices"][0]["capability"] = "8.0"  # but sm_86 does not run on 8.0
    assert only(gpu.arch_unsupported(s), "TE401")["details"]["problem"] == "too old"


def test_ptx_needs_the_toolkit_driver():
    s = healthy()
    s["torch"].update(version="2.11.0+cu128", local="cu128", cuda="12.8", arch_list=["sm_90", "compute_90"])
    s["torch"]["devices"][0].update(capability="10.0", name="NVIDIA B200")
    s["driver"].update(version="560.35.03", cuda_version="12.6")
    f = only(gpu.ptx_driver(s), "TE404")
    assert f["severity"] == "failure" and "570.26" in f["message"]
    assert not by_code(findings_for(s), "TE400"), "TE404 hides the gpu area's ok"
    assert gpu.ptx_driver(healthy()) == []


def test_cuda_visible_devices_empty():
    s = healthy(); s["env"]["CUDA_VISIBLE_DEVICES"] = ""
    f = only(gpu.visible_devices(s), "TE402")
    assert f["severity"] == "failure" and f["fix"] == "unset CUDA_VISIBLE_DEVICES"
    assert gpu.visible_devices(healthy()) == []


def test_cuda_visible_devices_out_of_range():
    s = healthy(); s["env"]["CUDA_VISIBLE_DEVICES"] = "1"
    f = only(gpu.visible_devices(s), "TE403")
    assert f["severity"] == "failure" and f["fix"] == "export CUDA_VISIBLE_DEVICES=0"
    s["env"]["CUDA_VISIBLE_DEVICES"] = "0,3"
    assert only(gpu.visible_devices(s), "TE403")["severity"] == "warning"
    s["env"]["CUDA_VISIBLE_DEVICES"] = "GPU-5a3f2c1e"
    assert gpu.visible_devices(s) == [], "a UUID prefix of an existing GPU is valid"
    s["env"]["CUDA_VISIBLE_DEVICES"] = "GPU-deadbeef"
    assert only(gpu.visible_devices(s), "TE403")["severity"] == "failure"


def test_cuda_visible_devices_not_judged_without_driver_facts():
    s = load("devbox_cuda_wheel_no_driver"); s["env"]["CUDA_VISIBLE_DEVICES"] = "3"
    assert gpu.visible_devices(s) == []


# ------------------------------------------------------------------ libraries

def test_ld_library_path_shadowing():
    s = healthy()
    s["env"]["LD_LIBRARY_PATH"] = "/usr/local/cuda-13.0/lib64:/opt/other/lib"
    s["libraries"]["entries"] = [{"dir": "/usr/local/cuda-13.0/lib64", "libs": [
        {"file": "libnvJitLink.so.13.0.39", "kind": "nvjitlink", "version": "13.0"},
        {"file": "libcudart.so.12.4.127", "kind": "cudart", "version": "12.4"}]}]
    f = only(libraries.ld_library_path(s), "TE501")
    assert f["severity"] == "warning" and "13.0" in f["message"] and "13.5" in f["message"]
    assert f["fix"] == "export LD_LIBRARY_PATH=/opt/other/lib"
    # the cudart 12.4 has another soname (.so.12): not reported
    assert [h["kind"] for h in f["details"]["shadowing"]] == ["nvjitlink"]
    assert libraries.ld_library_path(healthy()) == []


def test_ld_library_path_with_torchs_own_versions_is_fine():
    s = healthy()
    s["libraries"]["entries"] = [{"dir": "/x/site-packages/nvidia/cudnn/lib", "libs": [
        {"file": "libcudnn.so.9.24.0", "kind": "cudnn", "version": "9.24"}]}]
    assert libraries.ld_library_path(s) == []


def test_cudnn_mismatch_from_extension_and_from_torch():
    # runtime_info.cudnn.version: the cuDNN really loaded in the process; the wheel ships 9.24
    s = healthy(); s["extension"]["runtime_info"]["cudnn"].update(version=91000, library={
        "loaded": True, "soname": "libcudnn.so.9", "path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"})
    f = only(libraries.cudnn_mismatch(s), "TE502")
    assert f["severity"] == "failure" and "9.10.0" in f["message"] and "9.24.0" in f["message"]
    assert "/usr/lib/x86_64-linux-gnu/libcudnn.so.9" in f["explanation"]
    # without the extension: torch's view against the installed wheel; a newer minor is only a warning
    s = healthy(); s["extension"]["runtime_info"] = None; s["torch"]["cudnn"] = 92600
    assert only(libraries.cudnn_mismatch(s), "TE502")["severity"] == "warning"
    # without a pip cuDNN: the extension's cudnn.h is the reference
    s = healthy(); del s["packages"]["nvidia"]["nvidia-cudnn-cu13"]
    s["extension"]["runtime_info"]["cudnn"]["version"] = 81000
    assert only(libraries.cudnn_mismatch(s), "TE502")["details"]["compared"].endswith("compiled with")
    # torch's own refusal, verbatim
    s = healthy(); s["torch"]["cudnn_error"] = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled against "
                                                "(9, 24, 0) but found runtime version (9, 1, 0).")
    assert only(libraries.cudnn_mismatch(s), "TE502")["severity"] == "failure"
    assert libraries.cudnn_mismatch(healthy()) == []


def test_cudnn_handle_failed():
    s = healthy()
    s["extension"]["runtime_info"]["cuda"]["devices"][0]["cudnn_handle"] = {
        "ok": False, "status_code": 4, "status": "CUDNN_STATUS_INTERNAL_ERROR"}
    f = only(libraries.handle_failed(s), "TE503")
    assert "CUDNN_STATUS_INTERNAL_ERROR" in f["message"] and "H100" in f["message"]
    assert libraries.handle_failed(healthy()) == []
    # with no driver the handle fails for that reason alone: not reported (TE301 is)
    assert libraries.handle_failed(load("devbox_cuda_wheel_no_driver")) == []


# ------------------------------------------------------------------ toolchain

def test_nvcc_missing_is_a_warning_that_says_torch_still_works():
    s = healthy(); s["toolchain"]["nvcc"] = []
    f = only(toolchain.nvcc_missing(s), "TE601")
    assert f["severity"] == "warning" and "still works" in f["explanation"]
    assert toolchain.nvcc_missing(healthy()) == []
    assert toolchain.nvcc_missing(load("cpu_venv_no_gpu")) == []


def test_nvcc_major_mismatch():
    s = healthy()
    s["toolchain"]["nvcc"] = [
        {"path": "/usr/local/cuda-12.4/bin/nvcc", "source": "CUDA_HOME", "cuda_home": "/usr/local/cuda-12.4", "toolkit_found": True, "version": "12.4"},
        {"path": "/usr/local/cuda/bin/nvcc", "source": "/usr/local/cuda", "cuda_home": "/usr/local/cuda", "toolkit_found": True, "version": "13.0"}]
    f = only(toolchain.nvcc_major(s), "TE602")
    assert f["severity"] == "warning" and "12.4" in f["message"] and f["fix"] == "export CUDA_HOME=/usr/local/cuda"
    assert toolchain.nvcc_major(healthy()) == []


def test_cuda_home_pointing_at_nothing():
    s = healthy(); s["toolchain"]["cuda_home"]["CUDA_HOME"] = {"value": "/usr/local/cuda-12.1", "exists": False, "has_nvcc": False}
    f = only(toolchain.cuda_home(s), "TE603")
    assert "/usr/local/cuda-12.1 does not exist" in f["message"] and f["fix"] == "export CUDA_HOME=/usr/local/cuda"
    assert toolchain.cuda_home(healthy()) == []


# ------------------------------------------------------------------ extension

def test_extension_stale_missing_broken():
    s = healthy(); s["extension"]["status"].update(state="stale", stale_aot={
        "path": "/x/torch_envcheck/_C.cpython-312-x86_64-linux-gnu.so",
        "reason": "built against torch 2.13.0+cu130, running torch 2.14.1+cu130", "built_against": "2.13.0+cu130"})
    f = only(extension.state(s), "TE701")
    assert "2.13.0" in f["message"] and f["fix"] == "torch-envcheck build --force"
    s["extension"]["status"]["state"] = "missing"
    assert only(extension.state(s), "TE703")["fix"] == "torch-envcheck build"
    s["extension"]["status"].update(state="broken", error="ImportError: undefined symbol: _ZN3c10...")
    assert only(extension.state(s), "TE705")["severity"] == "failure"
    assert extension.state(healthy()) == []


def test_extension_no_kernel_image():
    s = healthy()
    s["torch"]["devices"][0].update(name="NVIDIA L4", capability="8.9")
    d = s["extension"]["runtime_info"]["cuda"]["devices"][0]
    d.update(name="NVIDIA L4", compute_capability={"major": 8, "minor": 9},
             kernel_image={"available": False, "error": "cudaErrorNoKernelImageForDevice"})
    f = only(extension.kernel_image(s), "TE702")
    assert "NVIDIA L4" in f["message"] and f["fix"] == "TORCH_CUDA_ARCH_LIST=8.9 torch-envcheck build --force"
    assert f["details"]["error"] == "cudaErrorNoKernelImageForDevice"
    assert not by_code(findings_for(s), "TE700"), "TE702 hides the extension area's ok"
    assert extension.kernel_image(healthy()) == []
    # a GPU torch itself cannot run is left to TE401
    assert extension.kernel_image(load("pascal_gtx1080_cu130")) == []


def test_extension_no_kernel_image_flat_form():
    s = healthy()
    s["extension"]["runtime_info"] = {"devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0",
                                                   "kernel_image": False}]}
    assert only(extension.kernel_image(s), "TE702")["fix"] == "TORCH_CUDA_ARCH_LIST=9.0 torch-envcheck build --force"


# ------------------------------------------------------------------ probe errors, rule crashes

def test_probe_error_becomes_a_warning_in_its_area():
    s = healthy(); s["probe_errors"] = {"driver": "TimeoutExpired: nvidia-smi timed out after 5 s"}
    found = findings_for(s)
    f = only(found, "TE390")
    assert f["severity"] == "warning" and f["area"] == "driver" and "nvidia-smi timed out" in f["message"]
    assert not [x for x in findings_for(healthy()) if x["code"].endswith("90")]


def test_extension_probe_errors_are_reported():
    s = healthy(); s["extension"]["errors"] = ["runtime_info(): RuntimeError: CUDA error: out of memory"]
    f = only(findings_for(s), "TE790")
    assert f["area"] == "extension" and "out of memory" in f["message"]


def test_a_crashing_rule_is_reported_not_raised(monkeypatch):
    def boom(s):
        raise ValueError("unexpected shape")
    monkeypatch.setattr(gpu, "RULES", [boom] + gpu.RULES)
    f = only(findings_for(healthy()), "TE490")
    assert "unexpected shape" in f["message"]


def test_python_against_requires_python_for_a_release_newer_than_the_tables():
    s = healthy(); s["torch"].update(version="2.99.0+cu140", local="cu140", requires_python=">=3.13")
    f = only(platform.python_range(s), "TE103")
    assert ">=3.13" in f["message"] and f["severity"] == "warning"
    s["platform"]["python"]["version"] = "3.13.1"
    assert platform.python_range(s) == []
    # the one specifier check (packaging's): `~=` is understood too
    s["torch"]["requires_python"] = "~=3.14"
    assert only(platform.python_range(s), "TE103")["details"]["requires_python"] == "~=3.14"
    s["torch"]["requires_python"] = "~=3.10"
    assert platform.python_range(s) == []


def test_wsl2_recommendations_use_linux_wheels_and_the_windows_driver_table():
    s = load("pascal_gtx1080_cu130"); s["platform"]["wsl"] = 2
    s["driver"]["version"] = "566.36"; s["driver"]["cuda_version"] = "12.7"   # a Windows driver seen from WSL 2
    s["torch"].update(cuda_available=False, device_count=0, devices=[],
                      cuda_init_error="CUDA initialization: The NVIDIA driver on your system is too old (found version 12070).")
    found = findings_for(s)
    assert only(found, "TE302")["fix"].endswith("/whl/cu126")
    f = only(found, "TE401")
    assert f["details"]["recommended_build"]["tag"] == "cu126"


def test_cuda_library_loaded_from_outside_the_environment():
    s = load("devbox_probed_cuda_ext_built")
    assert libraries.loaded_elsewhere(s) == []
    s["extension"]["runtime_info"]["loaded_libraries"]["cudnn"] = ["/usr/lib/x86_64-linux-gnu/libcudnn.so.9"]
    f = only(libraries.loaded_elsewhere(s), "TE501")
    assert "/usr/lib/x86_64-linux-gnu/libcudnn.so.9" in f["message"] and "nvidia-cudnn-cu13 9.24.0.43" in f["message"]
    assert not by_code(findings_for(s), "TE500"), "TE501 hides the libraries area's ok"


def test_driver_facts_missing_falls_back_to_torchs_own_error():
    s = load("devbox_probed_cuda_no_driver")
    s["driver"] = None
    s["probe_errors"] = {"driver": "OSError: [Errno 24] Too many open files"}
    found = findings_for(s)
    assert only(found, "TE390")["severity"] == "warning"
    assert only(found, "TE301")["severity"] == "warning"  # the PCI fact went with the driver probe: GPU unknown
    s["torch"]["cuda_init_error"] = "RuntimeError: CUDA error: unknown error"
    found = findings_for(s)
    assert not by_code(found, "TE301") and "unknown error" in only(found, "TE303")["message"]


def test_driver_missing_in_a_container_mentions_gpu_access():
    f = only(driver.driver_missing(load("docker_gpu_host_without_gpus_flag")), "TE301")
    assert "--gpus all" in f["explanation"]
    s = load("devbox_probed_cuda_no_driver"); s["driver"]["pci_gpus"] = None  # GPU unknown: still mentioned
    assert "--gpus all" in only(driver.driver_missing(s), "TE301")["explanation"]
    # no NVIDIA device on the bus: there is no GPU to map in, so no --gpus advice
    assert "--gpus" not in only(driver.driver_missing(load("devbox_probed_cuda_no_driver")), "TE301")["explanation"]
    assert "--gpus all" not in only(driver.driver_missing(load("devbox_cuda_wheel_no_driver") | {"platform": {
        **load("devbox_cuda_wheel_no_driver")["platform"], "container": None}}), "TE301")["explanation"]


def test_companion_mismatch_with_a_pypi_torch_without_local_tag():
    s = healthy(); s["torch"].update(version="2.14.1", local=None, cuda="13.2")
    assert "cu132" in only(torch_rules.companions(s), "TE204")["message"]  # torchvision is +cu130
    s["packages"]["torchvision"]["version"] = "0.29.1"  # PyPI companion: flavour unknown, not judged
    assert torch_rules.companions(s) == []
