"""The self-test: a pytest suite shipped inside torch_envcheck that checks *this* machine.

    pytest --pyargs torch_envcheck.selftest -rs      (or: torch-envcheck selftest)

It checks that torch imports and matches the compiled extension, that the extension's kernels agree
with torch's built-in ops, and, with an NVIDIA GPU, that CUDA initialises, every device computes,
cuDNN works and a large allocation succeeds.  Without a GPU the GPU tests are skipped with the reason;
set TORCH_ENVCHECK_REQUIRE_GPU=1 (or `torch-envcheck selftest --require-gpu`) to make that a failure.
Every failure names the doctor's finding code (torch_envcheck/doctor/codes.py) and the fix.
"""
