"""`python -m torch_envcheck.bench`: `torch-envcheck bench`, through the one command line."""

import sys

from torch_envcheck.cli import main

sys.exit(main(["bench", *sys.argv[1:]]))
