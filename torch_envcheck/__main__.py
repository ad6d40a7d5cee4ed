"""`python -m torch_envcheck` is the `torch-envcheck` command."""

import sys

from .cli import main

sys.exit(main())
