"""`python -m torch_envcheck` is the `torch-envcheck` command."""

import sys

# First thing, before the command's imports: rank 0 of `fleet` must not be killed by torchrun's
# SIGTERM before its own handler exists (see _util/stopflag.py).
from torch_envcheck._util import stopflag

stopflag.install_early(sys.argv[1:])

from torch_envcheck.cli import script  # noqa: E402

sys.exit(script())
