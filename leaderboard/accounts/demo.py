"""Accounts of a demo store: one organiser and one metric developer, with passwords made for that store.

Each demo store gets its own random passwords (never a fixed one), so a password printed by one demo
or shown on its Log in page opens no other store. They are kept in the store beside the accounts
(:mod:`leaderboard.storage.demo_accounts`) because the demo shows them to every visitor; which
stores may get them is decided by :mod:`leaderboard.publish.demo`.
"""

from __future__ import annotations

import secrets
import string

from ..storage import demo_accounts as stored
from .auth import hash_password

#: user name → role of the demo accounts
DEMO_ACCOUNTS: dict[str, str] = {"demo-organiser": "organiser", "demo-metrics": "metric-developer"}
PASSWORD_LENGTH = 16  # about 92 bits
# letters and digits that cannot be misread when typed from the screen (no 0/O/o, 1/l/I)
_ALPHABET = "".join(c for c in string.ascii_letters + string.digits if c not in "0Oo1lI")


def new_password() -> str:
    """A random password of letters and digits (nothing a shell or a form would change, none alike)."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(PASSWORD_LENGTH))


def create(store) -> list[dict]:
    """Create the demo accounts missing from ``store`` (a name already used is left as it is) and return
    every demo account of the store: ``{"name", "role", "password"}``."""
    for name, role in DEMO_ACCOUNTS.items():
        password = new_password()
        stored.add(store.engine, name, role, hash_password(password), password)
    return listed(store)


def listed(store) -> list[dict]:
    """The demo accounts of ``store`` (``{"name", "role", "password"}``), without checking them."""
    return [{k: a[k] for k in ("name", "role", "password")} for a in stored.accounts(store.engine)]
