"""Plain JSON values from numpy and pandas ones, for ``--json`` output, stored artifacts and downloads.

Standard library only at the top: the light commands use it without loading numpy or pandas.
"""

from __future__ import annotations

import math
import sys
from typing import Any


def json_text(obj: Any) -> str:
    """``obj`` as the indented JSON text of ``--json`` output and of the JSON downloads (NaN → null)."""
    import json
    return json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False)


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
