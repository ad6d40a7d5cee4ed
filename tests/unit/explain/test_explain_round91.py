"""explain's ninety-first round, from the misses of test133 (edge accelerators): an illegal instruction inside torch's
own libraries on 64-bit ARM, the architecture read from the frames' addresses when no word names it. The texts are
written for these tests from gdb's and the shell's formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_sigill_in_torchs_libraries_at_an_aarch64_address_is_the_wheels_arm_core():
    r = diagnose.diagnose("Illegal instruction (core dumped)\n(gdb) bt\n#0  0x0000ffff9a2b3c4d in some_kernel ()\n   from "
                          "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so")
    assert r["layer"] == "torch-build" and "ARM" in _fix(r) and "ATEN_CPU_CAPABILITY" not in _fix(r)


def test_sigill_in_torchs_libraries_at_an_x86_address_stays_the_instruction_set():
    r = diagnose.diagnose("Illegal instruction (core dumped)\n(gdb) bt\n#0  0x00007f9a2b3c4d5e in some_kernel ()\n   from "
                          "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so")
    assert "ATEN_CPU_CAPABILITY" in _fix(r)
