"""An extension compiled against one torch, found under another: it must be reported stale (never
loaded), with the torch it was built against and the rebuild command, and the JIT path must replace it.

Drives both venvs of the test pair (TE_TEST_CUDA_PYTHON builds, TE_TEST_CPU_PYTHON loads), so it runs
once, in the CPU-torch run of the suite.  The CUDA part is disabled for speed: the binary is still
compiled against the CUDA venv's torch."""

from __future__ import annotations

import glob
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")

from _ext_helpers import base_env, copy_repo, json_from, run_py  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(torch.version.cuda is not None,
                       reason="drives both venvs itself: runs once, in the CPU-torch run of the suite"),
]


@pytest.fixture(scope="module")
def stale(tmp_path_factory):
    import conftest  # noqa: PLC0415  (the fixtures' env lookup, usable at module scope)
    cuda_python = conftest._python_from_env("TE_TEST_CUDA_PYTHON")
    cpu_python = conftest._python_from_env("TE_TEST_CPU_PYTHON")
    root = tmp_path_factory.mktemp("stale")
    repo = copy_repo(str(root / "repo"))
    env = base_env(cuda_python, str(root / "cache-cuda"))
    env["TORCH_ENVCHECK_DISABLE_CUDA"] = "1"
    proc = subprocess.run([cuda_python, "setup.py", "build_ext", "--inplace"], env=env, cwd=repo,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    built = glob.glob(os.path.join(repo, "torch_envcheck", "_C*.so"))
    assert built, "setup.py build_ext --inplace produced no _C*.so"
    cuda_torch = subprocess.run([cuda_python, "-c", "import torch; print(torch.__version__)"],
                                capture_output=True, text=True, check=True).stdout.strip()
    cpu_env = base_env(cpu_python, str(root / "cache-cpu"))
    cpu_env["PYTHONPATH"] = repo
    return {"repo": repo, "so": built[0], "cuda_torch": cuda_torch, "cpu_python": cpu_python, "env": cpu_env}


def _run(stale, code, **extra):
    return run_py(stale["cpu_python"], code, dict(stale["env"], **extra), cwd=stale["repo"])


def test_stale_is_reported_not_loaded(stale):
    code = ("import json, sys, torch_envcheck as t; s = t.extension_status(); b = t.build_info(build=False); "
            "print(json.dumps({'s': s, 'b': b, 'loaded': 'torch_envcheck._C' in sys.modules}))")
    out = json_from(_run(stale, code, TORCH_ENVCHECK_AUTOBUILD="0"))
    s = out["s"]
    assert s["state"] == "stale"
    assert s["built_against"] == stale["cuda_torch"]
    assert s["stale_aot"]["built_against"] == stale["cuda_torch"]
    assert s["stale_aot"]["built_against_cuda"] is not None
    assert stale["cuda_torch"] in s["stale_aot"]["reason"] and s["running_torch"] in s["stale_aot"]["reason"]
    assert "torch-envcheck build" in s["stale_aot"]["rebuild_commands"]
    assert out["loaded"] is False, "a stale binary must never be imported"
    assert out["b"]["available"] is False
    assert out["b"]["extension"]["state"] == "stale"


def test_raw_import_of_the_stale_binary(stale):
    """What happens without the stale check.  Either the loader refuses ("undefined symbol", as in
    facebookresearch/maskrcnn-benchmark#421), or the binary loads and its compiled-in facts still name the torch it was built for: the
    build_info fields detect a stale binary even when its metadata file is lost."""
    code = ("import json, importlib, torch\ntry:\n    m = importlib.import_module('torch_envcheck._C')\n"
            "    print(json.dumps({'error': None, 'b': json.loads(m.build_info_json()), 'torch': torch.__version__}))\n"
            "except ImportError as e:\n    print(json.dumps({'error': str(e)}))")
    out = json_from(_run(stale, code))
    if out["error"] is not None:
        assert "undefined symbol" in out["error"]
        return
    built_for = out["b"]["torch_headers"]["version"]
    assert built_for == stale["cuda_torch"].split("+")[0]
    assert built_for != out["torch"].split("+")[0]


def test_autobuild_replaces_the_stale_binary(stale):
    code = "import json, torch_envcheck as t; print(json.dumps(t.build_info()))"
    proc = _run(stale, code)
    b = json_from(proc)
    assert b["available"] is True, proc.stderr[-4000:]
    assert b["extension"]["state"] == "ok" and b["extension"]["mode"] == "jit"
    assert b["extension"]["built_against"] == b["extension"]["running_torch"] != stale["cuda_torch"]
    assert b["extension"]["stale_aot"]["built_against"] == stale["cuda_torch"]
    assert b["torch_headers"]["matches_running_torch"] is True
