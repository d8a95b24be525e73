"""The allocation rules and the attention-check rotation the collection stage calls, from one place.

The rules are pure (:mod:`leaderboard.human.allocation`): the service builds their
``AllocationState`` from the store and records the choice in one transaction.
"""

from __future__ import annotations

try:  # branch i44's module, once merged
    from ..human.allocation import AllocationState, get_rule  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - until then
    from .standins import AllocationState, get_rule  # noqa: F401

from .standins import rotate_words  # noqa: F401

DEFAULT_RULE = "running-rank"
