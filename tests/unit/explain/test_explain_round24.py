"""explain's twenty-fourth round, from test24's misses (notebooks and IDEs) read as structure: CUDA's initialization
error in a program that says it forks (in prose, or as PyCUDA and darknet print the error) is the fork; DataLoader
workers dying where workers are spawned (Windows, or a notebook with no POSIX path) are the notebook or the missing
__main__ guard, not shared memory; a crash on `import torch` told in words is torch's binary on this machine; PyPI's
placeholder project `pytorch` names torch; conda's "not available from current channels: pytorch" is the channel.
The oracle is each tool's documented behaviour (the CUDA fork rule, torch.utils.data's platform notes, PyPI's
placeholder, PyTorch's conda channel notice)."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose


@pytest.mark.parametrize("text", [
    "issue with pycuda and multiprocessing\nIt init's the driver, then spawns a child process and init's the driver "
    "there.\nLogicError: cuInit failed: initialization error",
    "CUDA Error: initialization error (multiprocessing)\nI'm trying to run darknet in multiprocessing by preloading the "
    "weights in the parent process.\n`CUDA Error: initialization error`\n`python: ./darknet/src/cuda.c:36: check_error: "
    "Assertion 0 failed.`",
])
def test_cuda_initialization_error_where_the_program_forks(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "cuda-in-forked-child" and r["environment_problem"] is False, r


def test_cuinit_failing_without_a_fork_is_not_the_fork():
    r = diagnose.diagnose("LogicError: cuInit failed: initialization error")
    assert r["signature"] != "cuda-in-forked-child", r["signature"]


_DIED = "RuntimeError: DataLoader worker (pid(s) 18056, 20540, 4512) exited unexpectedly"


@pytest.mark.parametrize("where", [
    "  File \"C:\\Users\\me\\proj\\train.py\", line 40, in <module>\n",
    "when I run it in Jupyter notebook: %run main.py --epochs 100\n",
    "运行ctc_pytorch.ipynb文件下面语句时\n",
])
def test_workers_dying_where_they_are_spawned(where):
    r = diagnose.diagnose(where + _DIED)
    assert r["signature"] == "dataloader-worker-died-spawned" and r["environment_problem"] is False, r
    assert "__main__" in r["fix"] and "num_workers=0" in r["fix"], r["fix"]


@pytest.mark.parametrize("where", [
    "  File \"/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py\", line 1133\n",
    "in my Jupyter notebook: File \"/content/train.py\", line 3\n",
    "docker run --gpus all my-image\n",
])
def test_workers_dying_on_linux_are_memory(where):
    r = diagnose.diagnose(where + _DIED)
    assert r["signature"] == "dataloader-worker-died", r["signature"]


@pytest.mark.parametrize("text", [
    "Python3 crashes when importing torch",
    "Jupyter kernel dies when importing torch",
    "My notebook's kernel crashes when I'm trying to import torch",
    "As the picture shows, after `import torch`, the kernel died and restarting.",
])
def test_a_crash_on_import_told_in_words(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "import-crash-told" and r["layer"] == "torch-build", r
    assert "python -c" in r["fix"] and "Illegal instruction" in r["fix"], r["fix"]


def test_a_crash_later_in_the_program_is_not_an_import_crash():
    r = diagnose.diagnose("import torch works, but the training crashes after 10 epochs")
    assert r is None or r.get("signature") != "import-crash-told", r


def test_pypi_placeholder_pytorch():
    r = diagnose.diagnose("Collecting pytorch\n  Using cached pytorch-1.0.2.tar.gz (689 bytes)\nBuilding wheels for "
                          "collected packages: pytorch\n  Building wheel for pytorch (setup.py): finished with status "
                          "'error'\nFailed to build pytorch")
    assert r["signature"] == "pytorch-name-on-pypi" and "pip install torch" in r["fix"], r
    other = diagnose.diagnose("Collecting pytorch-lightning\n  Downloading pytorch_lightning-2.1.0-py3-none-any.whl")
    assert other is None or other.get("signature") != "pytorch-name-on-pypi"


@pytest.mark.parametrize("text, pkg", [
    ("PackagesNotFoundError: The following packages are not available from current channels:\n\n  - pytorch", "pytorch"),
    ("PackageNotFoundError: Package missing in current osx-64 channels:\n  - pytorch", "pytorch"),
    ("PackagesNotFoundError: The following packages are not available from current channels:\n\n  - torch", "torch"),
])
def test_conda_finds_no_pytorch_in_its_channels(text, pkg):
    r = diagnose.diagnose(text)
    assert r["signature"] == "conda-finds-no-pytorch" and "conda-forge" in r["fix"], r
    if pkg == "torch":
        assert "named pytorch" in r["explanation"], r["explanation"]


def test_conda_missing_another_package_is_not_this():
    r = diagnose.diagnose("PackagesNotFoundError: The following packages are not available from current channels:\n\n"
                          "  - pytorch-cuda=11.8")
    assert r is None or r.get("signature") != "conda-finds-no-pytorch", r
