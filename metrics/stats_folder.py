"""sacrebleu segment statistics kept in a folder, so that other processes reuse them (opt-in).

The scoring module keeps statistics in memory, keyed by the metric's settings and the digests of the
references and hypotheses. With ``MTLB_STATS_CACHE`` naming a folder, what one process computes is also
written there (one ``.npy`` file per key, written whole and renamed into place) and read back by the
next process that meets the same texts and settings: a second `mtlb demo`, `mtlb score` of outputs
already scored, the app after the command line. The folder holds only numbers derived from texts, may be
deleted at any time and is never required: a missing, unreadable or damaged file means "compute again".
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

STATS_CACHE_ENV = "MTLB_STATS_CACHE"


def _path(key: tuple[str, ...]) -> Path | None:
    folder = os.environ.get(STATS_CACHE_ENV)
    if not folder:
        return None
    name = hashlib.sha256("\0".join(key).encode("utf-8", "surrogatepass")).hexdigest()
    return Path(folder) / name[:2] / f"{name}.npy"


def load(key: tuple[str, ...]) -> np.ndarray | None:
    """The statistics stored under ``key``, or None (no folder set, nothing stored, or unreadable)."""
    path = _path(key)
    if path is None:
        return None
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None


def save(key: tuple[str, ...], stats: np.ndarray) -> None:
    """Store ``stats`` under ``key`` when a folder is set; a folder that cannot be written is skipped
    (the statistics are only a saving, never an input)."""
    path = _path(key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            np.save(out, stats, allow_pickle=False)
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
