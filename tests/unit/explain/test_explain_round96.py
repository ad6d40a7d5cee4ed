"""explain's ninety-sixth round, from the misses of test143 to test145 (attention kernels, gradient boosting, Stable
Diffusion training): SageAttention as a torch extension, XGBoost's and LightGBM's own words for builds without GPU
support, XGBoost's data in host memory, and WinError 193 for a damaged DLL in a package's folder. The texts are written
for these tests from the messages' formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_sageattention_not_installed_is_its_build():
    r = diagnose.diagnose("Can't import SageAttention: No module named 'sageattention'")
    assert r["signature"] == "torch-extension-not-installed" and "sageattention" in _fix(r)


def test_gradient_boosting_builds_without_gpu_support():
    for text, word in (("XGBoost version not compile with GPU support.", "xgboost"),
                       ("xgboost.core.XGBoostError: XGBoost is not compiled with CUDA support.", "xgboost"),
                       ("[LightGBM] [Fatal] GPU Tree Learner was not enabled in this build.", "USE_GPU")):
        r = diagnose.diagnose(text)
        assert r["signature"] == "framework-cpu-build" and r["layer"] == "gpu-unused" and word in _fix(r), text


def test_xgboost_with_host_data_is_the_programs():
    r = diagnose.diagnose("WARNING: XGBoost is running on: cuda:0, while the input data is on: cpu.")
    assert r["signature"] == "xgboost-data-on-cpu" and r["environment_problem"] is False


def test_winerror_193_names_a_damaged_package_dll_too():
    r = diagnose.diagnose("OSError: [WinError 193] %1 is not a valid Win32 application. Error loading \"C:\\\\venv\\\\"
                          "lib\\\\site-packages\\\\torch\\\\lib\\\\cudnn64_8.dll\" or one of its dependencies.")
    assert "--force-reinstall" in _fix(r)
