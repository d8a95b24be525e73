"""Helpers shared by the sub-commands: JSON output, tables, progress.

Light on purpose (standard library only at the top): every command imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..jsonable import to_jsonable


def keep_freed_memory() -> None:
    """Have this process reuse the memory it frees rather than hand it back to the system at once.

    ``mtlb rank`` and ``mtlb ingest`` of a WMT year build and drop arrays of tens of megabytes; by
    default glibc returns such blocks to the system and maps fresh pages for the next ones, and on a
    virtual machine every first touch of a fresh page is expensive (a third of the system time of
    ``mtlb rank`` on a million judgments). A one-shot command can keep them: it exits soon after.
    Only glibc has these settings; elsewhere this does nothing.
    """
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    mallopt(m_mmap_threshold, 32 << 20)  # the largest glibc accepts: bigger blocks still get their own map
    mallopt(m_trim_threshold, 1 << 30)
    mallopt(m_top_pad, 64 << 20)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def print_json(obj: Any) -> None:
    json.dump(to_jsonable(obj), sys.stdout, indent=2, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


def print_table(frame, floatfmt: str = "{:.4f}") -> None:
    """Plain aligned text table for humans (``frame``: a pandas DataFrame)."""
    import pandas as pd
    if frame.empty:
        print("(nothing)")
        return
    shown = frame.copy()
    for col in shown.columns:
        if pd.api.types.is_float_dtype(shown[col]):
            shown[col] = shown[col].map(lambda v: "" if pd.isna(v) else floatfmt.format(v))
    print(shown.to_string(index=False))
