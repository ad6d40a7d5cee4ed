"""explain's eighty-eighth round, from the misses of test125 (Intel GPUs) and test130 (mixed precision): oneAPI's
Unified Runtime result codes, generated from ur_api.h like every other family, read with Intel's stack's advice (not
CUDA's); torch's CPU autocast refusing float16; apex's FP16_Optimizer skipping a step. The texts are written for these
tests from the messages' formats, not copied from the corpus."""

from __future__ import annotations

import gen_error_tables as gen

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import error_codes
from explain_answers import fix_of as _fix


def test_the_generator_reads_a_cxx_attribute_between_name_and_value():
    body = ("\n  /// Success\n  UR_RESULT_SUCCESS = 0,\n  /// Old\n  UR_RESULT_ERROR_OLD [[deprecated]] = 27,\n"
            "  /// Next\n  UR_RESULT_ERROR_NEXT = 28,\n")
    codes = {c["name"]: c for c in gen.parse_enum(body)}
    assert codes["UR_RESULT_ERROR_OLD"]["value"] == 27 and codes["UR_RESULT_ERROR_OLD"]["deprecated"]
    assert codes["UR_RESULT_ERROR_NEXT"]["value"] == 28 and not codes["UR_RESULT_ERROR_NEXT"]["deprecated"]


def test_the_shipped_table_cites_its_header_and_has_the_codes_users_paste():
    lost = error_codes.by_name("UR_RESULT_ERROR_DEVICE_LOST")
    assert lost is not None and lost.value == 20 and lost.layer == "driver"
    assert error_codes.by_name("UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY").layer == "not-environment"
    assert error_codes.by_name("UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE").layer == "arch"
    assert "unified-runtime/ur_api.h" in (lost.source or "")


def test_a_lost_intel_gpu_gets_intels_driver_advice_not_nvidias():
    r = diagnose.diagnose("RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)")
    assert r["layer"] == "driver" and "sycl-ls" in _fix(r) and "nvidia-smi" not in _fix(r)


def test_an_intel_gpu_out_of_resources_is_the_workload_without_cuda_tools():
    r = diagnose.diagnose("RuntimeError: level_zero backend failed with error: 40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)")
    assert r["environment_problem"] is False and "CUDA_LAUNCH_BLOCKING" not in _fix(r) and "smaller batch" in _fix(r)


def test_cpu_autocast_asked_for_float16_is_the_programs_dtype():
    r = diagnose.diagnose("RuntimeError: Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype")
    assert r["signature"] == "cpu-autocast-dtype" and r["environment_problem"] is False
    assert "bfloat16" in _fix(r)


def test_apexs_fp16_optimizer_overflow_is_a_skipped_step():
    r = diagnose.diagnose("OVERFLOW! Skipping step. Attempted loss scale: 65536.0, reducing to 32768.0")
    assert r["signature"] == "loss-scale-skipped-step" and r["environment_problem"] is False
