"""``python -m leaderboard.cli``: the same as the ``mtlb`` command."""

import sys

from . import main

sys.exit(main())
