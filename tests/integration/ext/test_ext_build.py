"""Real builds of the extension when nvcc cannot be found (CUDA-torch run of the suite only).

A CUDA build of torch with no reachable nvcc must still get a working CPU-only extension whose build
facts say so and why; with TORCH_ENVCHECK_REQUIRE_CUDA=1 the same build must fail, naming the cause.
The build runs in a child process, in a copy of the repository, with its own cache (one compile, shared
by the tests of this module)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from _ext_helpers import base_env, copy_repo, hide_nvcc, json_from, run_py  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(torch.version.cuda is None,
                       reason="needs a CUDA build of torch: with a CPU torch the CPU-only reason is different "
                              "(covered by test_ext_info.py)"),
]

BUILD_CMD = ("import argparse, json; from torch_envcheck.commands import build as build_cli; p = argparse.ArgumentParser(); "
             "build_cli.add_arguments(p); rc = build_cli.run(p.parse_args([])); "
             "import torch_envcheck as t; "
             "print(json.dumps({'rc': rc, 'b': t.build_info(build=False), 'r': t.runtime_info(build=False)}))")


@pytest.fixture(scope="module")
def no_nvcc(tmp_path_factory):
    root = tmp_path_factory.mktemp("no-nvcc")
    repo = copy_repo(str(root / "repo"))
    env = hide_nvcc(base_env(sys.executable, str(root / "cache")), str(root / "shim"))
    env["PYTHONPATH"] = repo
    env["TORCH_ENVCHECK_IGNORE_AOT"] = "1"
    return repo, env


@pytest.fixture(scope="module")
def cpu_only_build(no_nvcc):
    repo, env = no_nvcc
    proc = run_py(sys.executable, BUILD_CMD, env, cwd=repo)
    out = json_from(proc)
    assert out["rc"] == 0, proc.stderr
    return out, proc


def test_nvcc_really_hidden(no_nvcc):
    repo, env = no_nvcc
    code = "import json; from torch_envcheck.ext import toolchain; print(json.dumps(toolchain.nvcc_candidates()))"
    assert json_from(run_py(sys.executable, code, env, cwd=repo)) == []


def test_cpu_only_build_facts_say_why(cpu_only_build):
    out, proc = cpu_only_build
    b, r = out["b"], out["r"]
    assert b["available"] is True
    assert b["cuda_compiled"] is False and b["cuda"] is None
    assert b["cuda_reason"].startswith("no nvcc found")
    assert b["build_meta"]["cuda"]["compiled"] is False
    assert b["extension"]["state"] == "ok" and b["extension"]["mode"] == "jit"
    assert b["extension"]["path"].split(os.sep)[-2].endswith("-cpuonly")
    assert b["torch_headers"]["version"] == torch.__version__.split("+")[0]
    assert "CUDA:    not compiled: no nvcc found" in proc.stdout  # what `torch-envcheck build` printed
    # The run-time report still works, without the CUDA probes; the libraries torch loaded are still seen.
    assert r["available"] is True
    assert r["cuda_compiled"] is False and r["cuda"] is None
    assert r["cudnn"]["version"] == torch.backends.cudnn.version()
    assert r["loaded_libraries"]["cudart"], "torch's own libcudart is mapped even in a CPU-only build"


def test_require_cuda_fails_clearly(no_nvcc):
    repo, env = no_nvcc
    env = dict(env, TORCH_ENVCHECK_REQUIRE_CUDA="1")
    code = ("import argparse; from torch_envcheck.commands import build as build_cli; p = argparse.ArgumentParser(); "
            "build_cli.add_arguments(p); raise SystemExit(build_cli.run(p.parse_args(['--force'])))")
    proc = run_py(sys.executable, code, env, cwd=repo)
    assert proc.returncode == 1
    assert "TORCH_ENVCHECK_REQUIRE_CUDA=1 but the CUDA part cannot be built: no nvcc found" in proc.stderr
    assert "Traceback" not in proc.stderr
    # The ahead-of-time path (setup.py) refuses the same way.
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], env=env, cwd=repo,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "TORCH_ENVCHECK_REQUIRE_CUDA=1 but the CUDA part cannot be built: no nvcc found" in proc.stderr
    assert not [f for f in os.listdir(os.path.join(repo, "torch_envcheck")) if f.startswith("_C")]
