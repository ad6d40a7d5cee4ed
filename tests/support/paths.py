"""Where the tests' files are: the repository, the tests folder, the recorded snapshots and the
recorded test data (the tests live one or two folders below tests/, so they ask here)."""

import os

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)
SNAP_DIR = os.path.join(TESTS, "snapshots")
DATA = os.path.join(TESTS, "data")
SUPPORT = os.path.join(TESTS, "support")
