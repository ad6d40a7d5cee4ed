"""What the doctor knows about the stack, and the one place that answers questions about it.

The facts live in versioned JSON tables (torch_envcheck/knowledge/data/*.json, every row naming its
source); the modules here load them (lazily, once: tables) and answer:

    drivers   which driver runs which CUDA: driver_runs() ("toolkit" / "compat" / "no" / None),
              min_driver_for_cuda()
    gpus      which GPUs a build's code runs on: capability_match(), sass_runs_on(), is_tegra(),
              the arch lists, cuDNN's oldest GPU
    releases  PyTorch's releases and builds: release(), python_range(), latest_release_for() (the
              newest build a machine runs), releases_supporting() (the pip command of a build is
              advice's: advice/pip_commands.py)
    libraries what a CUDA library's file name says (kind and version)
    machine   which host compilers each nvcc accepts, and the advisories (library versions with a
              published silent-corruption or crash bug) matched against installed versions
    distributions  names of distributions the probes record and the advice writes back
    tensorflow  TensorFlow's tested builds (imported on its own: `from torch_envcheck.knowledge
              import tensorflow`)
    conda_forge  conda-forge's pytorch builds per platform and CUDA with their arch lists, and the
              newest one a machine runs (imported on its own, like tensorflow)

Everything is re-exported here: callers write `from torch_envcheck import knowledge as kb` and ask
`kb.driver_runs(...)`.  The version helpers are the one parser's (_util/versions.py).  Pure
Python: no torch import.  Used by the facts layer, the rules, advice and fleet; it imports none of
them.
"""

from __future__ import annotations

from torch_envcheck._util.versions import (  # noqa: F401
    cuda_from_tag, local_tag, major_minor, release_key, tag_from_cuda, version_tuple,
)
from torch_envcheck.knowledge.drivers import (  # noqa: F401
    COMPAT, NO, TOOLKIT, driver_runs, min_driver_for_cuda,
)
from torch_envcheck.knowledge.gpus import (  # noqa: F401
    build_arch_list, capability_match, cudnn_min_capability, cudnn_supports, is_tegra, parse_arch_list,
    sass_runs_on,
)
from torch_envcheck.knowledge.libraries import parse_library  # noqa: F401
from torch_envcheck.knowledge.machine import (  # noqa: F401
    advisories_for, compiler_identity, host_compiler_fits, newest_cuda_for_compiler, newest_host_compiler_cuda,
)
from torch_envcheck.knowledge.releases import (  # noqa: F401
    index_url, latest_known_release, latest_learned_release, latest_release_for, min_driver_any_build,
    build_on_platform, clear_caches, python_range, python_supported, release, releases,
    releases_supporting, torchaudio_for, torchvision_for, verified_releases, wheel_arch_list,
)
from torch_envcheck.knowledge.tables import (  # noqa: F401
    CAPABILITIES_FILE, DATA_DIR, DRIVERS_FILE, RELEASES_FILE, KnowledgeError, load_table,
)
