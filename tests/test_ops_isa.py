"""Every compiled CPU kernel variant (DEFAULT, AVX2, AVX512) is selected by ATEN_CPU_CAPABILITY and
computes the right values.  Each variant runs in its own subprocess: the choice is made once per
process, as ATen's is."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from _ops_helpers import load_ops

SCRIPT = r"""
import json, math, sys
import torch, torch.nn.functional as F
sys.path.insert(0, sys.argv[1])
from _ops_helpers import rand, EPS32
from torch_envcheck import ops
E = ops.load()
torch.manual_seed(0)
res = {"isa": ops.cpu_kernel_isa()}
errs = {}
for n in (1, 7, 17, 33, 1000, 70001):
    b, c = rand(n), rand(n)
    errs[f"triad{n}"] = (E.triad(b, c, 1.5) - (b + 1.5 * c)).abs().max().item() / 1e-6
    s, ref = E.sum(b).item(), b.double().sum().item()
    errs[f"sum{n}"] = abs(s - ref) / (4 * max(1, math.log2(n)) * EPS32 * b.double().abs().sum().item())
for shape in ((3, 1), (5, 17), (7, 33), (65, 1000)):
    x, bias = rand(*shape) * 3, rand(shape[-1])
    errs[f"softmax{shape}"] = (E.softmax(x) - torch.softmax(x, -1)).abs().max().item() / 1e-6
    errs[f"gelu{shape}"] = (E.bias_gelu(x, bias) - F.gelu(x + bias)).abs().max().item() / 1e-5
for m, k, n in ((1, 1, 1), (15, 33, 31), (29, 300, 70), (100, 257, 129)):
    a, b = rand(m, k), rand(k, n)
    ref = a.double() @ b.double()
    bound = 2 * k * EPS32 * (a.double().abs() @ b.double().abs())
    errs[f"sgemm{(m, k, n)}"] = ((E.sgemm(a, b).double() - ref).abs() / bound).max().item()
    errs[f"sgemmT{(m, k, n)}"] = ((E.sgemm(a.t().contiguous().t(), b.t().contiguous().t()).double() - ref).abs()
                                  / bound).max().item()
res["errors"] = errs
print(json.dumps(res))
"""


@pytest.fixture(scope="module")
def isa_info():
    from torch_envcheck import ops
    load_ops()  # builds the extension once in this process; the subprocesses reuse it
    return ops.cpu_kernel_isa()


@pytest.mark.parametrize("variant", ["default", "avx2", "avx512"])
def test_variant_selected_and_correct(isa_info, variant):
    want = variant.upper()
    if want not in isa_info["compiled"]:
        pytest.skip(f"{want} is not compiled on this platform (compiled: {isa_info['compiled']})")
    if want != "DEFAULT" and want not in isa_info["cpu_supports"]:
        pytest.skip(f"this CPU does not support {want} (supports: {isa_info['cpu_supports']})")
    env = dict(os.environ, ATEN_CPU_CAPABILITY=variant, TORCH_ENVCHECK_AUTOBUILD="0")
    # The subprocess must import the same torch_envcheck (installed or checkout) and so the same _C.
    import torch_envcheck
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    # cwd=tests_dir: `python -c` puts the working directory first on sys.path, and from the repo root
    # that would be the checkout's torch_envcheck, not the installed one this process uses.
    proc = subprocess.run([sys.executable, "-c", SCRIPT, tests_dir], env=env, capture_output=True, text=True,
                          timeout=300, cwd=tests_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["isa"]["selected"] == want, res["isa"]
    bad = {k: v for k, v in res["errors"].items() if not v <= 1.0}
    assert not bad, f"{want}: errors above tolerance (as multiples of it): {bad}"


def _functions_by_namespace(so_path: str) -> dict:
    """{namespace prefix: disassembly text of its functions} for the ISA namespaces, from objdump."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", so_path], capture_output=True, text=True,
                         timeout=120).stdout
    blocks = {"envcheck::AVX512::": [], "envcheck::AVX2::": [], "envcheck::DEFAULT::": []}
    current = None
    for line in out.splitlines():
        if line.endswith(">:"):
            current = next((ns for ns in blocks if ns in line), None)
        elif current is not None:
            blocks[current].append(line)
    return {ns: "\n".join(lines) for ns, lines in blocks.items()}


def test_variants_really_emit_vector_code(isa_info):
    """The target pragmas work with this compiler: the AVX-512 variant uses zmm registers and FMAs,
    the AVX2 variant ymm FMAs and no zmm, the DEFAULT variant neither."""
    import shutil

    from torch_envcheck import extension
    if "AVX512" not in isa_info["compiled"]:
        pytest.skip("not an x86-64 build")
    if not shutil.which("objdump"):
        pytest.skip("objdump is not installed")
    path = extension.status().get("path")
    if not path or not os.path.isfile(path):
        pytest.skip("the extension's shared library path is unknown")
    code = _functions_by_namespace(path)
    if not code["envcheck::AVX512::"]:
        pytest.skip("no symbols for the kernel namespaces (stripped binary)")
    assert "zmm" in code["envcheck::AVX512::"] and "vfmadd" in code["envcheck::AVX512::"]
    assert "ymm" in code["envcheck::AVX2::"] and "vfmadd" in code["envcheck::AVX2::"]
    assert "zmm" not in code["envcheck::AVX2::"]
    assert "ymm" not in code["envcheck::DEFAULT::"] and "zmm" not in code["envcheck::DEFAULT::"]
