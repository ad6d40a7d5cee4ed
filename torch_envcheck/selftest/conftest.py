"""Fixtures of the self-test: torch, the loaded extension, and the CUDA devices of this machine.

Test parameters come from the machine: `device` is "cpu" plus one "cuda:<i>" per visible GPU, and
`gpu` is one index per GPU.  Without a GPU both get a single "no GPU" parameter whose tests are
skipped with the reason (or fail with TORCH_ENVCHECK_REQUIRE_GPU=1), so `pytest -rs` shows why.
"""

from __future__ import annotations

import pytest

from torch_envcheck.selftest._support import classify_cuda_error, fail, gpu_required, nvidia_driver_loaded, tagged

NO_GPU = "no-gpu"


def _torch_or_none():
    try:
        import torch
        return torch
    except Exception:
        return None


def _cuda_device_count() -> int:
    torch = _torch_or_none()
    if torch is None or not torch.version.cuda:
        return 0
    try:
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:
        return 0


def pytest_generate_tests(metafunc):
    count = _cuda_device_count()
    gpus = list(range(count)) or [NO_GPU]
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("device", ["cpu"] + [f"cuda:{i}" if i != NO_GPU else "cuda"
                                                  for i in gpus], indirect=True)
    if "gpu" in metafunc.fixturenames:
        metafunc.parametrize("gpu", gpus, ids=[f"cuda:{i}" if i != NO_GPU else NO_GPU for i in gpus],
                             indirect=True)


@pytest.fixture(scope="session")
def torch():
    mod = _torch_or_none()
    if mod is None:
        pytest.skip("torch is not importable (test_torch_imports says why)")
    return mod


@pytest.fixture(scope="session")
def cuda_state(torch) -> dict:
    """Whether CUDA works here:
    {"devices": [indices], "skip": (code, why) | None, "fail": (code, message, fix) | None}."""
    driver = nvidia_driver_loaded()
    if not torch.version.cuda:
        if driver:
            return {"devices": [], "skip": None,
                    "fail": ("TE202", f"torch {torch.__version__} is a CPU-only build but an NVIDIA driver is "
                             "loaded on this machine", "install a CUDA build of torch: `torch-envcheck advise`")}
        return {"devices": [], "fail": None,
                "skip": ("TE203", f"no NVIDIA GPU: torch {torch.__version__} is a CPU-only build and no "
                                  "NVIDIA driver is loaded")}
    try:
        torch.cuda.init()  # raises with the reason (no driver, driver too old, ...); is_available() only says False
        count = torch.cuda.device_count()
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}".strip()
        code, fix = classify_cuda_error(text)
        if driver:  # the kernel module is loaded, so a GPU is there and CUDA should work
            return {"devices": [], "skip": None, "fail": (code, f"CUDA does not initialise: {text}", fix)}
        return {"devices": [], "fail": None,
                "skip": (code, f"no NVIDIA GPU: no driver is loaded (torch.cuda: {text.splitlines()[0]})")}
    if count == 0:
        return {"devices": [], "skip": None,
                "fail": ("TE402", "CUDA initialised but sees no device",
                         "check CUDA_VISIBLE_DEVICES (unset it to see every GPU)")}
    return {"devices": list(range(count)), "skip": None, "fail": None}


def _require_gpu(cuda_state):
    if cuda_state["fail"]:
        fail(*cuda_state["fail"])
    if not cuda_state["devices"]:
        code, why = cuda_state["skip"]
        if gpu_required():
            fix = ("install a CUDA build of torch: `torch-envcheck advise` prints the command" if code == "TE203"
                   else "install the NVIDIA driver; `torch-envcheck` shows which layer is missing")
            fail(code, f"a GPU is required (TORCH_ENVCHECK_REQUIRE_GPU) but none is usable: {why}", fix)
        pytest.skip(tagged(code, why))


@pytest.fixture
def gpu(request, torch, cuda_state) -> int:
    """The index of one CUDA device (one test per GPU); skips or fails when there is none."""
    _require_gpu(cuda_state)
    if request.param == NO_GPU:  # collection saw no GPU but CUDA works now: should not happen
        pytest.skip("CUDA devices appeared after collection")
    return request.param


@pytest.fixture
def device(request, torch, cuda_state):
    """A torch.device to run on: the CPU, or each CUDA device in turn."""
    if request.param == "cpu":
        return torch.device("cpu")
    _require_gpu(cuda_state)
    if request.param == "cuda":
        pytest.skip("CUDA devices appeared after collection")
    return torch.device(request.param)


@pytest.fixture(scope="session")
def extension(torch):
    """The loaded `_C` extension (built on first use), or a record of why it failed to load."""
    from torch_envcheck.ext import extension as ext
    try:
        module = ext.load()
    except Exception as exc:
        return {"module": None, "error": f"{type(exc).__name__}: {exc}", "status": ext.status()}
    return {"module": module, "error": None, "status": ext.loaded_status() or ext.status()}


@pytest.fixture(scope="session")
def loaded_extension(extension):
    if extension["module"] is None:
        pytest.skip("the extension did not load (test_extension_loads says why)")
    return extension

