"""`python -m torch_envcheck.doctor`: `torch-envcheck doctor`, through the one command line."""

import sys

from torch_envcheck.cli import main

sys.exit(main(["doctor", *sys.argv[1:]]))
