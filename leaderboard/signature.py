"""A sacrebleu-like signature string recording everything that determines a ranking.

Example::

    da|protocol:wmt-da|qc:release|std:given|items:system+repeat|score:z|sort:ave_z|test:mwu-greater|
    p:0.05|clusters:organisers|systems:12|segments:1448|judgments:20094|ci:bootstrap-segments@0.95|
    resamples:1000|seed:12345|version:mtlb-0.1.0

Fields are ``key:value`` joined by ``|`` after the leading kind (``da``); their order is fixed
(:data:`FIELDS`) so equal protocols give equal strings. Nothing parses a signature back: how a ranking
was made is its spec (:mod:`leaderboard.human.spec`, stored with every snapshot); only
:func:`leaderboard.human.spec.legacy_spec` reads the signatures of snapshots stored before specs were.
"""

from __future__ import annotations

from typing import Any, Mapping

from . import __version__

FIELDS: tuple[str, ...] = ("protocol", "qc", "std", "items", "score", "sort", "test", "trials", "p",
                           "clusters", "systems", "segments", "judgments", "ci", "resamples", "seed", "version")


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value).replace("|", "/").replace(" ", "_")


def make_signature(fields: Mapping[str, Any], kind: str = "da") -> str:
    """Join ``fields`` in the canonical order (unknown keys go last, sorted); version is added."""
    values = dict(fields)
    values.setdefault("version", f"mtlb-{__version__}")
    keys = [k for k in FIELDS if k in values] + sorted(k for k in values if k not in FIELDS)
    return "|".join([kind] + [f"{k}:{_text(values[k])}" for k in keys])

