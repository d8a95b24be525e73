"""Helpers shared by the sub-commands: JSON output, tables, progress.

Light on purpose (standard library only at the top): every command imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..jsonable import to_jsonable


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
