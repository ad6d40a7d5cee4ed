"""python -m torch_envcheck.bench: the same as `torch-envcheck bench`."""

import argparse
import sys

from torch_envcheck.commands import bench as cli

parser = argparse.ArgumentParser(prog="python -m torch_envcheck.bench", description=cli.__doc__.splitlines()[0])
cli.add_arguments(parser)
sys.exit(cli.run(parser.parse_args()))
