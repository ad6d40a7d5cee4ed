"""Every compiled CPU kernel variant (DEFAULT, AVX2, AVX512) is selected by ATEN_CPU_CAPABILITY and
computes the right values.  Each variant runs in its own subprocess: the choice is made once per
process, as ATen's is."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from _ops_helpers import load_ops, run_child_python

SCRIPT = r"""
import json, math, sys
import torch, torch.nn.functional as F
sys.path.insert(0, sys.argv[1])
from _ops_helpers import rand, EPS32, INF, NAN, gelu_ref, softmax_ref, special_error
from torch_envcheck.ext import ops
E = ops.load()
torch.manual_seed(0)
res = {"isa": ops.cpu_kernel_isa()}
errs = {}
for n in (1, 7, 17, 33, 1000, 70001):
    b, c = rand(n), rand(n)
    errs[f"triad{n}"] = (E.triad(b, c, 1.5).double() - (b.double() + 1.5 * c.double())).abs().max().item() / 1e-6
    s, ref = E.sum(b).item(), b.double().sum().item()
    errs[f"sum{n}"] = abs(s - ref) / (4 * max(1, math.log2(n)) * EPS32 * b.double().abs().sum().item())
# Finite random inputs: float64 references (torch's float64 kernels), tolerances atol + rtol * |ref|.
for shape in ((3, 1), (5, 17), (7, 33), (65, 1000)):
    x, bias = rand(*shape) * 3, rand(shape[-1])
    errs[f"softmax{shape}"] = special_error(E.softmax(x), torch.softmax(x.double(), -1), 1e-6, 1e-5)
    # GELU in float64 through erfc: torch's float64 F.gelu cancels in 1 + erf below z = -8 and returns
    # exactly 0 where the value is about -1e-16, which special_error would hold an accurate kernel to.
    z = x.double() + bias.double()
    errs[f"gelu{shape}"] = special_error(E.bias_gelu(x, bias), 0.5 * z * torch.special.erfc(-z / math.sqrt(2)),
                                         2e-6, 1e-5)
# Special values against math in float64 with the limits (tests/support/_ops_helpers.py says which): masked
# (-inf) entries exactly 0, a nan makes its row nan, one +inf gives a one-hot row, large magnitudes
# neither overflow nor underflow to garbage, subnormals pass through; row lengths around the 4-, 8- and
# 16-float steps.
sm = torch.tensor([[0., -INF, 1., 2., -INF, 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14.],
                   [1., NAN, 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., 16.],
                   [-100., 100., 50., -50., 0., 1e-3, -1e-3, 88., -88., 1e-40, -1e-40, 3e38, -3e38, 0., 1., 2., 3.],
                   [-INF, -INF, 0., -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF, -INF],
                   [1., 2., INF, 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., INF],
                   [1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., 16., INF],
                   [1e-40, -1e-40, 2e-45, 0., -0., 1e-38, 1e-40, 1e-40, 1e-40, 1e-40, 1e-40, 1e-40, 1e-40, 1e-40, 1e-40,
                    1e-40, 1e-40]])
for cols in (1, 2, 3, 4, 5, 8, 9, 16, 17):
    part = sm[:, :cols].contiguous()
    errs[f"softmax_special{cols}"] = special_error(E.softmax(part), softmax_ref(part), 1e-6, 1e-5)
g = torch.tensor([[-INF, INF, NAN, -10., 10., -1e-5, 1e-5, 0., -0., 5.5, -5.5, 1e30, -1e30, 3.3, -0.7, 3e38, -3e38,
                   1e-40, -1e-40, 2e-45, -20., -40., 88., -88., 1e-38, 7.]])
for cols in (g.shape[1], 1, 5, 17):
    gg = g[:, :cols].contiguous()
    errs[f"gelu_special{cols}"] = special_error(E.bias_gelu(gg, torch.zeros(cols)), gelu_ref(gg), 2e-6, 1e-5)
def gemm_err(a, b):
    c = E.sgemm(a, b)
    assert c.shape == (a.shape[0], b.shape[1]) and c.is_contiguous()
    if c.numel() == 0:
        return 0.0
    ref = a.double() @ b.double()
    bound = 2 * max(1, a.shape[1]) * EPS32 * (a.double().abs() @ b.double().abs()) + 1e-30
    return ((c.double() - ref).abs() / bound).max().item()

# Odd shapes: 1x1x1, K = 0 (C must be zeros), primes around the register blocks (6x16, 5x8, 14x32), K
# beyond one packed slice, N beyond a 16-float micro-panel several times.
shapes = [(1, 1, 1), (1, 0, 1), (5, 0, 3), (15, 33, 31), (29, 300, 70), (100, 257, 129), (7, 13, 17),
          (13, 1031, 5), (31, 37, 41), (97, 101, 103), (1, 2053, 1), (2, 3, 1000)]
for m, k, n in shapes:
    a, b = rand(m, k), rand(k, n)
    errs[f"sgemm{(m, k, n)}"] = gemm_err(a, b)
    errs[f"sgemmT{(m, k, n)}"] = gemm_err(a.t().contiguous().t(), b.t().contiguous().t())
    errs[f"sgemmS{(m, k, n)}"] = gemm_err(rand(m, 2 * k + 1)[:, 1::2], rand(k, 3 * n)[:, ::3])
# Seeded random shapes and layouts (a property test that runs in each forced variant's process).
g = torch.Generator().manual_seed(12)
for i in range(40):
    m, k, n = (int(x) for x in torch.randint(0, 80, (3,), generator=g))
    ta, tb = (bool(x) for x in torch.randint(0, 2, (2,), generator=g))
    a = rand(k, m).t() if ta else rand(m, k)
    b = rand(n, k).t() if tb else rand(k, n)
    errs[f"sgemmR{(m, k, n, ta, tb)}"] = gemm_err(a, b)
res["errors"] = errs
print(json.dumps(res))
"""


@pytest.fixture(scope="module")
def isa_info():
    from torch_envcheck.ext import ops
    load_ops()  # builds the extension once in this process; the subprocesses reuse it
    return ops.cpu_kernel_isa()


def _run_forced(isa_info, variant, extra_env=None, script=SCRIPT, expect_failure=False):
    """Run `script` in a fresh process with ATEN_CPU_CAPABILITY=variant; skips when the variant is not
    compiled or this CPU cannot run it.  Returns the JSON of its last output line."""
    want = variant.upper()
    if want not in isa_info["compiled"]:
        pytest.skip(f"{want} is not compiled on this platform (compiled: {isa_info['compiled']})")
    if want != "DEFAULT" and want not in isa_info["cpu_supports"]:
        pytest.skip(f"this CPU does not support {want} (supports: {isa_info['cpu_supports']})")
    env = dict(os.environ, ATEN_CPU_CAPABILITY=variant, TORCH_ENVCHECK_AUTOBUILD="0")
    env.pop("TORCH_ENVCHECK_SGEMM_BLOCKING", None)
    env.update(extra_env or {})
    from paths import SUPPORT as tests_dir
    proc = run_child_python(["-c", script, tests_dir], env, timeout=300)
    if expect_failure:
        assert proc.returncode != 0, proc.stdout[-2000:]
        return proc.stderr
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["isa"]["selected"] == want, res["isa"]
    return res


@pytest.mark.parametrize("variant", ["default", "avx2", "avx512"])
def test_variant_selected_and_correct(isa_info, variant):
    want = variant.upper()
    res = _run_forced(isa_info, variant)
    assert res["isa"]["sgemm_blocking"]["from"] == "model"
    bad = {k: v for k, v in res["errors"].items() if not v <= 1.0}
    assert not bad, f"{want}: errors above tolerance (as multiples of it): {bad}"


@pytest.mark.parametrize("variant", ["default", "avx2", "avx512"])
def test_variant_correct_with_tiny_cache_blocks(isa_info, variant):
    """Blocks far smaller than the matrices (MC 7 -> one or two register blocks, KC 19, NC 40 -> a few
    micro-panels): every blocking loop, partial slice and edge tile runs many times on small inputs."""
    res = _run_forced(isa_info, variant, {"TORCH_ENVCHECK_SGEMM_BLOCKING": "7,19,40"})
    blk = res["isa"]["sgemm_blocking"]
    mr, nr = res["isa"]["sgemm_register_block"]
    assert blk["from"] == "TORCH_ENVCHECK_SGEMM_BLOCKING" and blk["kc"] == 19
    assert blk["mc"] % mr == 0 and 7 <= blk["mc"] < 7 + mr and blk["nc"] % nr == 0 and 40 <= blk["nc"] < 40 + nr
    bad = {k: v for k, v in res["errors"].items() if not v <= 1.0}
    assert not bad, f"{variant}: errors above tolerance (as multiples of it): {bad}"


def test_bad_blocking_variable_is_a_clear_error(isa_info):
    script = ("import sys, torch; sys.path.insert(0, sys.argv[1]); from torch_envcheck.ext import ops; "
              "ops.load().sgemm(torch.ones(3, 4), torch.ones(4, 5))")
    err = _run_forced(isa_info, "default", {"TORCH_ENVCHECK_SGEMM_BLOCKING": "64,abc"}, script=script,
                      expect_failure=True)
    assert "TORCH_ENVCHECK_SGEMM_BLOCKING must be three positive integers MC,KC,NC" in err
    assert "'64,abc'" in err


def _disassemblable_library(isa_info) -> str:
    """The loaded extension's shared library, for objdump; skips where that cannot be read."""
    import shutil

    from torch_envcheck.ext import extension
    if "AVX512" not in isa_info["compiled"]:
        pytest.skip("not an x86-64 build")
    if not shutil.which("objdump"):
        pytest.skip("objdump is not installed")
    path = extension.status().get("path")
    if not path or not os.path.isfile(path):
        pytest.skip("the extension's shared library path is unknown")
    return path


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
    path = _disassemblable_library(isa_info)
    code = _functions_by_namespace(path)
    if not code["envcheck::AVX512::"]:
        pytest.skip("no symbols for the kernel namespaces (stripped binary)")
    assert "zmm" in code["envcheck::AVX512::"] and "vfmadd" in code["envcheck::AVX512::"]
    assert "ymm" in code["envcheck::AVX2::"] and "vfmadd" in code["envcheck::AVX2::"]
    assert "zmm" not in code["envcheck::AVX2::"]
    assert "ymm" not in code["envcheck::DEFAULT::"] and "zmm" not in code["envcheck::DEFAULT::"]


def _micro_kernel_loops(so_path: str) -> dict:
    """{(namespace, MR, NV): [instructions of the innermost hottest loop]} for every micro_kernel<MR, NV>
    in the built library: the loop is the backward jump whose body holds the most multiply-adds."""
    import re

    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", so_path], capture_output=True, text=True,
                         timeout=120).stdout
    head = re.compile(r"^[0-9a-f]+ <.*envcheck::(AVX512|AVX2|DEFAULT)::.*micro_kernel<(\d+), (\d+)>.*>:$")
    insn = re.compile(r"^\s*([0-9a-f]+):\s+(\S.*)$")
    funcs, current = {}, None
    for line in out.splitlines():
        m = head.match(line)
        if m:
            current = (m.group(1), int(m.group(2)), int(m.group(3)))
            funcs.setdefault(current, []).append([])
            continue
        if not line.strip() or line.endswith(">:"):
            current = None if line.endswith(">:") else current
            continue
        m = insn.match(line)
        if current is not None and m:
            funcs[current][-1].append((int(m.group(1), 16), m.group(2)))
    loops = {}
    for key, bodies in funcs.items():
        best = []
        for body in bodies:
            for addr, text in body:
                j = re.match(r"j\w+\s+([0-9a-f]+)\b", text)
                if not j or int(j.group(1), 16) >= addr:
                    continue
                target = int(j.group(1), 16)
                loop = [t for a, t in body if target <= a <= addr]
                if sum(("vfmadd" in t or "mulps" in t) for t in loop) > sum(("vfmadd" in t or "mulps" in t) for t in best):
                    best = loop
        loops[key] = best
    return loops


def test_micro_kernel_loops_use_all_registers_without_spills(isa_info):
    """objdump the built _C: each variant's micro-kernel loop does MR*NV vector multiply-adds per k step on
    registers of its width (vfmadd231ps ymm for AVX2, zmm for AVX512; mulps+addps xmm for DEFAULT, which
    has no FMA), and touches no stack slot inside the loop (no spill or reload)."""
    path = _disassemblable_library(isa_info)
    loops = _micro_kernel_loops(path)
    if not loops:
        pytest.skip("no micro_kernel symbols (stripped binary)")
    found = {ns for ns, _, _ in loops}
    assert found == {"AVX512", "AVX2", "DEFAULT"}, sorted(loops)
    for (ns, mr, nv), loop in loops.items():
        text = "\n".join(loop)
        # The DEFAULT loop is written with SSE2 intrinsics: with torch 2.13.0's headers the generic
        # Vectorized<float> it used before compiled to scalar code through the stack (no mulps at all).
        assert loop, f"{ns} micro_kernel<{mr}, {nv}>: no loop found"
        assert "(%rsp" not in text and "(%rbp" not in text, f"{ns} micro_kernel<{mr}, {nv}> spills:\n{text}"
        if ns == "DEFAULT":
            # SSE2 intrinsics: NV xmm of 4 floats per row; a multiply and an add per pair.
            mul = [t for t in loop if t.startswith("mulps")]
            add = [t for t in loop if t.startswith("addps")]
            assert len(mul) % (mr * nv) == 0 and len(mul) == len(add) and mul, text
            assert "ymm" not in text and "zmm" not in text, text
            continue
        reg = "zmm" if ns == "AVX512" else "ymm"
        fma = [t for t in loop if t.startswith("vfmadd")]
        assert fma and len(fma) % (mr * nv) == 0, f"{ns}: {len(fma)} FMAs, want a multiple of {mr * nv}:\n{text}"
        assert all(t.startswith("vfmadd231ps") and t.count(f"%{reg}") == 3 for t in fma), text
        assert "vbroadcastss" in text
        if ns == "AVX2":
            assert "zmm" not in text


def _innermost_loops(so_path: str, functions: tuple) -> dict:
    """{namespace: [mnemonics of the innermost loop with the most FMAs or multiplies]} in the functions
    whose demangled name contains one of `functions`, per ISA namespace (GCC inlines a helper in one
    variant and not in another)."""
    import re

    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", so_path], capture_output=True, text=True,
                         timeout=120).stdout
    head = re.compile(r"^[0-9a-f]+ <.*envcheck::(AVX512|AVX2|DEFAULT)::(.*)>:$")
    insn = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
    bodies, current = [], None
    for line in out.splitlines():
        m = head.match(line)
        if line.endswith(">:"):
            current = ((m.group(1), []) if m and any(f in m.group(2) for f in functions)
                       and ".cold" not in m.group(2) else None)
            if current:
                bodies.append(current)
            continue
        m = insn.match(line)
        if current is not None and m:
            current[1].append((int(m.group(1), 16), m.group(2), m.group(3)))
    best = {}
    for ns, body in bodies:
        loops = []
        for addr, op, args in body:
            j = re.match(r"([0-9a-f]+)\b", args)
            if op.startswith("j") and j and int(j.group(1), 16) < addr:
                loops.append((int(j.group(1), 16), addr))
        for lo, hi in loops:
            if any(lo <= a and b <= hi and (a, b) != (lo, hi) for a, b in loops):
                continue  # not innermost
            ops = [op for a, op, _ in body if lo <= a <= hi]
            # the most FMAs and multiplies, then the most instructions: softmax's pipelined loop (this row's
            # exps with their sum, and the last row's scaling) over the online path's last pass (exps and
            # scaling, no sum) and the first row's loop (exps and sum alone)
            mul_ops = ("vfm", "vmulps", "mulps")
            key = (sum(op.startswith(mul_ops) for op in ops), len(ops))
            if key > (sum(op.startswith(mul_ops) for op in best.get(ns, [])), len(best.get(ns, []))):
                best[ns] = ops
    return best


def test_roofline_instruction_counts_match_the_built_loops(isa_info):
    """The instruction-mix bound (bench/roofline.py INSTRUCTIONS_PER_VECTOR) counts what the built kernels
    run: objdump's four-vector loop of bias_gelu (x + b, GELU) and of softmax's pipelined pass (x - max, exp,
    running sum, the previous row's scaling: the model's softmax adds the max pass, one add-pipe
    instruction), per vector, for AVX-512, AVX2 and DEFAULT (SSE2), in three classes: all; mul = the
    instructions that issue only on the FMA pipes (FMAs, multiplies, divides, vscalefps, lane permutes,
    vblendvps); add = those on the add pipes (adds, subtracts, min/max, rounding); loads, stores,
    broadcasts and register moves are not counted."""
    from torch_envcheck.bench import roofline

    path = _disassemblable_library(isa_info)
    # The model's counts were read from GCC 12's code; another compiler schedules (and counts) differently, and
    # the model then describes a build this machine does not have.
    comment = subprocess.run(["objdump", "-s", "-j", ".comment", path], capture_output=True, text=True,
                             timeout=60).stdout
    # objdump's dump: an offset, then up to four hex words, then their text; the bytes hold "GCC: (...) 12.2.0"
    rows = (re.match(r" ([0-9a-f]{4,}) ", ln) for ln in comment.splitlines())
    data = b"".join(bytes.fromhex(m.string[m.end():m.end() + 35].replace(" ", "")) for m in rows if m)
    text = data.decode("ascii", "replace")
    compilers = set(re.findall(r"GCC: \([^)]*\) (\d+)\.", text))
    if compilers != {"12"}:
        pytest.skip(f"the model's instruction counts are GCC 12's; this library's .comment names {sorted(compilers) or 'no GCC'}")
    fma_pipe = ("vfmadd", "vfmsub", "vfnmadd", "vfnmsub", "vmulps", "vdivps", "vscalefps", "vpermt2ps",
                "vpermi2ps", "vpermps", "vblendvps", "mulps", "divps")
    add_pipe = ("vaddps", "vsubps", "vminps", "vmaxps", "vrndscaleps", "vroundps", "addps", "subps", "minps",
                "maxps")
    # softmax: the pipelined loop of the cached rows (in softmax_rows_cached, or inlined into softmax_rows),
    # plus the max pass (one instruction on the add pipes)
    for functions, name, extra in ((("bias_gelu_rows<false>",), "bias_gelu", (0, 0, 0)),
                                   (("softmax_rows_cached<false>", "softmax_rows<false>"), "softmax", (1, 0, 1))):
        loops = _innermost_loops(path, functions)
        if not loops:
            pytest.skip("no symbols for the kernel namespaces (stripped binary)")
        for ns, family in (("AVX512", "avx512"), ("AVX2", "avx2"), ("DEFAULT", "sse2")):
            if ns == "DEFAULT":  # SSE2 mnemonics: packed-float and packed-integer arithmetic, conversions
                # shufps is SSE2's broadcast: GCC re-broadcasts a constant inside the loop or hoists it, by the
                # build's flags (the pip-installed build showed 3 per 4 vectors, the JIT build none), and
                # broadcasts are not counted on any ISA.
                simd = [op for op in loops[ns] if (op.endswith("ps") or op.startswith(("p", "cvt")))
                        and not op.startswith(("movaps", "movups", "movss", "movntps", "prefetch", "push", "pop",
                                               "shufps"))]
            else:
                simd = [op for op in loops[ns] if op.startswith("v") and not op.startswith(("vmov", "vbroadcast", "vzero"))]
            counted = (round(len(simd) / 4) + extra[0],
                       round(sum(op.startswith(fma_pipe) for op in simd) / 4) + extra[1],
                       round(sum(op.startswith(add_pipe) for op in simd) / 4) + extra[2])
            assert counted == roofline.INSTRUCTIONS_PER_VECTOR[name][family], (ns, name, counted, loops[ns])
        if name == "bias_gelu":
            assert "vdivps" not in loops["AVX512"]  # the GELU's table replaced erfcc's divide
