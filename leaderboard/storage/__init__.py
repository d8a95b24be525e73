"""The store: every database read and write of the product goes through :class:`Store`."""

from .db import default_url, get_engine
from .store import Store

__all__ = ["Store", "default_url", "get_engine"]
