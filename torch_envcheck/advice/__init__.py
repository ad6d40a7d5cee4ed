"""The advice room: what to install and how, for one machine.  Every install command the tool
prints (the doctor's fix lines, `advise`, `advise --script`, `pin`, `rebuild` plans) is made here,
from the knowledge tables and the snapshot's facts; it never imports a command or a rule.

    recommend.py   THE recommendation (a CUDA/CPU build, NVIDIA's JetPack wheel, a native Python
                   under Rosetta) and the commands that install it
    platform.py    the platform model: OS, shell, environment manager, accelerator, container, layout
    frameworks.py  torch and TensorFlow in one environment: pin clashes, one environment each
    deps.py        installed requirements and what a pip command leaves (packaging)
    check.py       the fix checker every printed command passes (shellwords.py reads lines back)
    plan.py, scripts.py, sources.py, requirements_file.py   fresh environments (advise --script, rebuild)
    conda.py, env_yml.py, docker.py, tensorflow.py, venv_commands.py   the other forms of the advice
    system_commands.py   the system package managers' lines (apt-get, dnf, zypper, pacman, winget, ...)
"""
