"""The app's Streamlit settings, shipped inside the package (``streamlit_config.toml``).

Streamlit reads ``.streamlit/config.toml`` only from the working directory (and the user's home), so a
server started elsewhere, or from an installed package, would run without them: visitors would see
tracebacks and the "Deploy" toolbar. ``mtlb serve`` passes :func:`options` as command-line flags instead.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

CONFIG_FILE = Path(__file__).resolve().with_name("streamlit_config.toml")


def options() -> dict[str, Any]:
    """Every shipped setting as ``{"section.option": value}`` (nested sections joined by dots)."""
    with open(CONFIG_FILE, "rb") as fh:
        config = tomllib.load(fh)
    out: dict[str, Any] = {}

    def walk(table: dict, prefix: str) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}{key}.")
            else:
                out[f"{prefix}{key}"] = value
    walk(config, "")
    return out
