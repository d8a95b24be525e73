"""Helpers shared by the sub-commands: JSON output, tables, progress.

Light on purpose (standard library only at the top): every command imports it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def to_jsonable(obj: Any) -> Any:
    """Convert numpy / pandas values (and NaN → null) into plain JSON types."""
    np, pd = sys.modules.get("numpy"), sys.modules.get("pandas")  # not loaded: no such values here
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if pd is not None and isinstance(obj, pd.DataFrame):
        return to_jsonable(obj.to_dict(orient="records"))
    if np is not None and isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float) or (np is not None and isinstance(obj, np.floating)):
        value = float(obj)
        return None if math.isnan(value) or math.isinf(value) else value
    if np is not None and isinstance(obj, np.bool_):
        return bool(obj)
    if np is not None and isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if obj is None or (pd is not None and obj is pd.NA):
        return None
    return obj


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
