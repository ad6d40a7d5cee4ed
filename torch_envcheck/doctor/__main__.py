"""`python -m torch_envcheck.doctor`: the doctor command without the other subcommands."""

import sys

from .cli import main

sys.exit(main())
