"""From diagnosis to a working environment.

    plan.py       what to install: the advised torch (or a pinned requirements file), its companions,
                  the project's requirements, and where pip takes them from (mirrors, wheel folders)
    sources.py    pip's package sources: --index-url, a mirror of the PyTorch index, --find-links,
                  --no-index
    scripts.py    the plan as a re-runnable setup script for sh, PowerShell or cmd (venv or conda)
    docker.py     the official pytorch/pytorch image tag that fits a machine
    selfwheel.py  a wheel of the running torch_envcheck, so a new environment gets this very version
    runner.py     carries a plan out into a fresh environment, step by step, and verifies it

The command, `torch-envcheck rebuild DEST`, is commands/rebuild.py.
"""
