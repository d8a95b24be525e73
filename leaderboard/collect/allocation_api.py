"""The allocation rules the collection stage calls (:mod:`leaderboard.human.allocation`), from one place.

The rules are pure: the service builds their ``AllocationState`` from the store
(:func:`leaderboard.collect.cesa.allocation_state`) and records the choice in one transaction.
"""

from __future__ import annotations

from ..errors import InputError
from ..human.allocation import RULES, AllocationRule, AllocationState, get_rule as _get_rule

DEFAULT_RULE = "running-rank"

__all__ = ["AllocationRule", "AllocationState", "DEFAULT_RULE", "RULES", "get_rule"]


def get_rule(name: str, **params):
    """The allocation rule ``name`` with its parameters; an unknown name or parameter is refused in words."""
    if name not in RULES:
        raise InputError(f"unknown allocation rule {name!r}; the rules are {', '.join(sorted(RULES))}", column="rule")
    try:
        return _get_rule(name, **params)
    except TypeError as exc:
        raise InputError(f"allocation rule {name!r} does not take these parameters ({exc})", column="rule") from None
