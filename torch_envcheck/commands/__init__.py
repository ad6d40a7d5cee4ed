"""One module per `torch-envcheck` command (add_arguments(parser), run(args) -> int), imported only
when that command runs (see torch_envcheck/cli.py).  bench, fleet and rebuild keep their command
module inside their own room (bench/cli.py, fleet/cli.py, rebuild/cli.py)."""
