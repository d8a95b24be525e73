"""The store: every database read and write of the product goes through :class:`Store`.

``Store`` (and with it pandas and SQLAlchemy) loads on first use, so a command that only reads the
schema revision (``mtlb db current``) starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .db import default_url, get_engine

if TYPE_CHECKING:
    from .store import Store

__all__ = ["Store", "default_url", "get_engine"]


def __getattr__(name: str) -> Any:
    if name == "Store":
        from .store import Store
        return Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
