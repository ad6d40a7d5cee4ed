"""`python -m torch_envcheck` is the `torch-envcheck` command."""

import sys

from torch_envcheck.cli import main

sys.exit(main())
