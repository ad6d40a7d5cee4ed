"""The paths of the CPU softmax and bias_gelu kernels that small inputs never take, in every variant this CPU
runs (each in its own process: the variant is chosen once per process):

* rows longer than the cached-row limit (16384 floats) go through the online pass (running maximum and
  sum chunk by chunk of 2048): special values placed in different chunks, a maximum that grows from
  chunk to chunk, a tail chunk;
* outputs larger than the last-level cache are written with streaming stores, from an aligned head on
  (TORCH_ENVCHECK_STREAM_MIN_BYTES lowers the threshold so that small tensors take that path): rows of an
  odd length, so that most rows start unaligned.

The oracle is float64 math (tests/support/_ops_helpers.py), not another kernel.
"""

from __future__ import annotations

import json
import os

import pytest

from _ops_helpers import load_ops, run_child_python

SCRIPT = r"""
import json, math, sys
import torch
sys.path.insert(0, sys.argv[1])
from _ops_helpers import rand, INF, NAN, softmax_ref, special_error
from torch_envcheck.ext import ops
E = ops.load()
torch.manual_seed(0)
res = {"isa": ops.cpu_kernel_isa()}
errs = {}
cols = 20000  # 9 whole chunks of 2048 and a tail of 1568
rows = []
rows.append(rand(cols) * 3)
r = rand(cols); r[:5000] = -INF; rows.append(r)                      # leading chunks all -inf
rows.append(torch.linspace(-60.0, 60.0, cols) + rand(cols))           # the maximum grows chunk by chunk
r = rand(cols); r[15000] = NAN; rows.append(r)                        # nan in a late chunk
r = rand(cols); r[cols - 1] = INF; rows.append(r)                     # one +inf in the tail
r = rand(cols); r[100] = INF; r[17000] = INF; rows.append(r)          # two +inf
rows.append(torch.full((cols,), -INF))                                # all -inf
r = torch.full((cols,), -INF); r[2000] = NAN; r[9000] = 1.0; rows.append(r)  # nan among -inf, then finite
r = rand(cols) * 30; r[::7] = -INF; rows.append(r)                    # masked entries everywhere
x = torch.stack(rows)
errs["online"] = special_error(E.softmax(x), softmax_ref(x), 1e-6, 1e-5)
for n in (16384, 16385, 2 * 2048 + 1):
    x = rand(3, n) * 4
    errs[f"softmax{n}"] = special_error(E.softmax(x), torch.softmax(x.double(), -1), 1e-6, 1e-5)
# Streaming stores (this process runs with TORCH_ENVCHECK_STREAM_MIN_BYTES=4096: every output above 4 KiB
# is streamed, as outputs larger than the last-level cache are otherwise).  1037 floats a row: rows start
# at every offset modulo the vector width.
c = 1037
x, b = rand(67, c) * 3, rand(c)
x[5, 7] = INF
x[9, 100] = NAN
x[11, :] = -INF
want = torch.softmax(x.double(), -1)
want[5] = 0.0; want[5, 7] = 1.0
want[9] = NAN
want[11] = NAN
errs["softmax_stream"] = special_error(E.softmax(x), want, 1e-6, 1e-5)
for n in (20000, 3):  # streamed long rows; an output under the threshold
    xs = rand(5, n) * 3
    errs[f"softmax_stream{n}"] = special_error(E.softmax(xs), torch.softmax(xs.double(), -1), 1e-6, 1e-5)
x[5, 7], x[9, 100] = 0.5, 0.25
x[11] = rand(c)
for xg, bg in ((x, b), (x[:, 3:].contiguous(), b[3:].contiguous()), (x[:1, :5].contiguous(), b[:5].contiguous())):
    z = xg.double() + bg.double()
    errs[f"gelu_stream{tuple(xg.shape)}"] = special_error(E.bias_gelu(xg, bg),
                                                          0.5 * z * torch.special.erfc(-z / math.sqrt(2)), 2e-6, 1e-5)
res["errors"] = errs
print(json.dumps(res))
"""


@pytest.fixture(scope="module")
def isa_info():
    from torch_envcheck.ext import ops
    load_ops()  # builds the extension once in this process; the subprocesses reuse it
    return ops.cpu_kernel_isa()


@pytest.mark.parametrize("variant", ["default", "avx2", "avx512"])
def test_long_rows_and_streamed_outputs_are_right(isa_info, variant):
    want = variant.upper()
    if want not in isa_info["compiled"]:
        pytest.skip(f"{want} is not compiled on this platform")
    if want != "DEFAULT" and want not in isa_info["cpu_supports"]:
        pytest.skip(f"this CPU does not support {want}")
    env = dict(os.environ, ATEN_CPU_CAPABILITY=variant, TORCH_ENVCHECK_AUTOBUILD="0",
               TORCH_ENVCHECK_STREAM_MIN_BYTES="4096")
    from paths import SUPPORT as tests_dir
    proc = run_child_python(["-c", SCRIPT, tests_dir], env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["isa"]["selected"] == want, res["isa"]
    bad = {k: v for k, v in res["errors"].items() if not v <= 1.0}
    assert not bad, bad


def test_bad_stream_threshold_is_one_clear_error():
    load_ops()
    script = ("import torch; from torch_envcheck.ext import ops; E = ops.load()\n"
              "try:\n    E.softmax(torch.ones(4, 4))\nexcept RuntimeError as e:\n    print(str(e).splitlines()[0])")
    env = dict(os.environ, TORCH_ENVCHECK_AUTOBUILD="0", TORCH_ENVCHECK_STREAM_MIN_BYTES="lots")
    proc = run_child_python(["-c", script], env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "TORCH_ENVCHECK_STREAM_MIN_BYTES must be a byte count" in proc.stdout and "'lots'" in proc.stdout
