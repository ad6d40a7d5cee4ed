"""One module per `torch-envcheck` command: add_arguments(parser) and run(args) -> int."""
