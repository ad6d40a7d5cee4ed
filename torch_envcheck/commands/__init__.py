"""One module per `torch-envcheck` command (add_arguments(parser), run(args) -> int), imported only
when that command runs (see torch_envcheck/cli.py).  bench, fleet and rebuild have their command
module here too; their engines stay in their own rooms (bench/, fleet/, rebuild/), which never import
a command."""
