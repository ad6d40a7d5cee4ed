"""explain's thirty-first round, from test31's misses (the install itself failing): the machine under pip read in
the install's context (disk, memory, the OOM killer, read timeouts, permissions, a DLL held open, a filesystem that
refuses a name), PEP 668, certificates, a wheel URL that moved, conda's refusals by class, a built wheel never
installed, PyPI's placeholder recognised by its own setup.py frame. The texts are written for these tests from each
tool's messages and documentation, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


_PIP = ("Collecting torch\n  Downloading https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp311-cp311-"
        "linux_x86_64.whl (908.2 MB)\n")


@pytest.mark.parametrize("tail, word", [
    ("ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device", "TMPDIR"),
    ("ERROR: Exception:\nTraceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/pip/_internal/"
     "cli/base_command.py\", line 180, in exc_logging_wrapper\nMemoryError", "--no-cache-dir"),
    ("     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╸ 908.1/908.2 MB 40.1 MB/s eta 0:00:01\nKilled", "swap"),
    ("  File \"/usr/lib/python3.11/ssl.py\", line 1159, in read\nTimeoutError: The read operation timed out",
     "--timeout"),
    ("ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: "
     "'/usr/lib/python3.11/site-packages/torch'", "virtual environment"),
    ("ERROR: Could not install packages due to an OSError: [Errno 22] Invalid argument: "
     "'/mnt/data/envs/x/lib/python3.11/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info.'", "Linux filesystem"),
])
def test_the_machine_under_pip_has_one_remedy_per_failure(tail, word):
    r = diagnose.diagnose(_PIP + tail)
    assert r["signature"] == "install-interrupted" and r["layer"] == "torch-build", r
    assert word in _fix(r), _fix(r)


def test_a_full_temp_drive_on_windows_names_temp_not_tmpdir():
    r = diagnose.diagnose("Installing torch\n  File \"C:\\Python311\\Lib\\tempfile.py\", line 483, in func_wrapper\n"
                          "OSError: [Errno 28] No space left on device")
    assert r["signature"] == "install-interrupted" and "set TEMP=" in _fix(r), r


def test_a_dll_held_open_is_not_a_permission_problem():
    r = diagnose.diagnose("Installing collected packages: torch\nERROR: Could not install packages due to an OSError: "
                          "[WinError 5] Access is denied: 'C:\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\"
                          "torch_cuda.dll'")
    assert r["signature"] == "install-interrupted" and "Jupyter" in _fix(r), r


def test_the_same_errno_outside_an_install_is_not_the_installs():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"train.py\", line 90, in save\n"
                          "OSError: [Errno 28] No space left on device: '/data/ckpt/epoch_12.pt'")
    assert r["signature"] != "install-interrupted", r


def test_pep_668_is_a_virtual_environment():
    r = diagnose.diagnose("$ pip install torch\nerror: externally-managed-environment\n\n× This environment is "
                          "externally managed\n╰─> To install Python packages system-wide, try apt install python3-xyz")
    assert r["signature"] == "externally-managed-environment" and "venv" in _fix(r), r
    assert "--break-system-packages" in _fix(r)  # named only to advise against it


@pytest.mark.parametrize("text, layer, word", [
    ("WARNING: Retrying (Retry(total=4)) after connection broken by 'SSLError(SSLCertVerificationError(1, "
     "'[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain "
     "(_ssl.c:1006)'))': /whl/cu121/torch/", "torch-build", "--cert"),
    ("  File \"/Library/Frameworks/Python.framework/Versions/3.12/lib/python3.12/urllib/request.py\", line 1347\n"
     "urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get "
     "local issuer certificate (_ssl.c:1000)>", "env", "Install Certificates"),
    ("torch.hub.load('pytorch/vision', 'resnet18')\nurllib.error.URLError: <urlopen error [SSL: "
     "CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1129)>", "env", "clock"),
])
def test_certificates_by_who_downloads(text, layer, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == "certificate-not-trusted" and r["layer"] == layer, r
    assert word in _fix(r)


def test_a_moved_wheel_url_and_an_index_page_refused():
    r = diagnose.diagnose("$ pip install https://download.pytorch.org/whl/cu90/torch-1.0.0-cp36-cp36m-linux_x86_64.whl\n"
                          "ERROR: HTTP error 404 while getting https://download.pytorch.org/whl/cu90/torch-1.0.0-cp36-"
                          "cp36m-linux_x86_64.whl")
    assert r["signature"] == "wheel-url-refused" and "pytorch.org/get-started" in _fix(r), r
    r = diagnose.diagnose("pip install torch --extra-index-url https://download.pytorch.org/whl/cu118\nERROR: "
                          "403 Client Error: Forbidden for url: https://download.pytorch.org/whl/cu118/requests/")
    assert r["signature"] == "wheel-url-refused" and "Upgrade pip" in _fix(r), r


@pytest.mark.parametrize("text, sig, word", [
    ("conda install pytorch torchvision -c pytorch\nSolving environment: failed\n\nUnsatisfiableError: The following "
     "specifications were found to be incompatible with each other:", "conda-unsatisfiable", "conda create"),
    ("PackagesNotFoundError: The following packages are not available from current channels:\n\n  - pytorch-cuda=13.0\n",
     "conda-package-not-on-channels", "conda search"),
    ("PackagesNotFoundError: The following packages are not available from current channels:\n\n  - cudatoolkit=11.8\n\n"
     "Current channels:\n\n  - https://conda.anaconda.org/pytorch/osx-arm64\n", "conda-cuda-package-on-mac", "mps"),
    ("ClobberError: This transaction has incompatible packages due to a shared path.\n  packages: defaults/linux-64::"
     "libpng-1.6.39, conda-forge/linux-64::libpng-1.6.43\n  path: 'include/png.h'", "conda-clobber-error", "strict"),
    ("SafetyError: The package for pytorch located at /opt/conda/pkgs/pytorch-2.4.0-py3.11_cuda12.1_cudnn9.1.0_0\n"
     "appears to be corrupted. The path 'lib/python3.11/site-packages/torch/version.py'\nhas an incorrect size.",
     "conda-cache-safety-error", "conda clean --all"),
    ("UnavailableInvalidChannel: HTTP 404 NOT FOUND for channel pytorch-nightly <https://mirrors.example.edu/anaconda/"
     "cloud/pytorch-nightly>\n\nThe channel is not accessible or is invalid.", "conda-channel-invalid", ".condarc"),
])
def test_condas_refusals_by_class(text, sig, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig, r
    assert word in _fix(r), _fix(r)


def test_a_built_wheel_is_not_an_installed_one():
    r = diagnose.diagnose("$ python3.10 setup.py bdist_wheel\n... copying build/lib/torch\n$ python3.10 -c 'import "
                          "torch'\nModuleNotFoundError: No module named 'torch'")
    assert r["signature"] == "built-wheel-not-installed" and "dist/" in _fix(r), r


def test_the_placeholder_by_its_own_setup_frame():
    r = diagnose.diagnose("      File \"C:\\Users\\u\\AppData\\Local\\Temp\\pip-install-1\\torch\\setup.py\", line 225, in "
                          "<module>\n        setup(name=\"torch\", version=\"0.1.2.post2\",")
    assert r["signature"].startswith("torch-placeholder-sdist"), r


def test_wheel_tags_name_the_python_in_a_path():
    r = diagnose.diagnose("  File \"/usr/lib/python3.8/subprocess.py\", line 364\nERROR: "
                          "torch-2.1.0-cp310-cp310-linux_aarch64.whl is not a supported wheel on this platform.")
    assert r["signature"] == "wheel-tags-not-this-interpreter", r
    assert "Python 3.8" in r["explanation"] and "Python 3.10" in _fix(r)
