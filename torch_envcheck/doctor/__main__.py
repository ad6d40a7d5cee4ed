"""`python -m torch_envcheck.doctor`: the doctor command without the other subcommands."""

import sys

from torch_envcheck.commands.doctor import main

sys.exit(main())
