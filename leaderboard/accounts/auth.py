"""Passwords (argon2) and login throttling for the web app and ``mtlb user``.

Passwords are stored only as argon2id hashes (argon2-cffi's defaults). Failed logins are counted per
account (the user name; for token sign-in, the token tried) and per client address when the address is
known, in the store (shared by every app process, kept across restarts); after ``max_failures``
failures inside ``window`` seconds further attempts with that key are refused for a lock time that
doubles with every further lock (capped). An address may fail ``address_factor`` times as often before
it is locked, so one account's failures never lock another account, not even one signing in from the
same address (an office, a proxy); an unknown address is no key at all (never one global key).
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import threading
import time
from typing import Callable, NamedTuple

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ..errors import InputError


class Record(NamedTuple):
    """One key's state: recent failure times, the end of its lock, and how many locks it had."""
    failures: tuple[float, ...]
    locked_until: float
    locks: int


EMPTY = Record((), 0.0, 0)

ROLES: tuple[str, ...] = ("organiser", "metric-developer")
MIN_PASSWORD_LENGTH = 8

_hasher = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """The hash verified for unknown users, so that they take as long as known ones; made on first use
    (at import it cost every process that loads this module a full argon2 hash)."""
    return _hasher.hash("not a real password, only for timing")


def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` (refuses passwords shorter than MIN_PASSWORD_LENGTH)."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InputError(f"a password needs at least {MIN_PASSWORD_LENGTH} characters", code="short_password")
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """True when ``password`` matches ``password_hash``; never raises on a malformed hash."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class LoginThrottled(Exception):
    """Too many failed logins; ``retry_after`` seconds until the next attempt is accepted."""

    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(f"too many failed logins; try again in {int(retry_after) + 1} s")


class Throttle:
    """Counts failed logins per key (user name, client) and locks a key that fails too often.

    With ``store`` the counts live in the database (:mod:`leaderboard.storage.throttle`): every
    process sharing the store sees the same locks, and they survive restarts. Without it they live
    in this object (tests, one-off use). ``clock`` defaults to wall-clock time with a store (shared
    between processes) and to ``time.monotonic`` without.
    """

    def __init__(self, max_failures: int = 5, window: float = 900.0, lock: float = 30.0,
                 max_lock: float = 3600.0, clock: Callable[[], float] | None = None, store=None,
                 address_factor: int = 10) -> None:
        self.max_failures, self.window, self.lock, self.max_lock = max_failures, window, lock, max_lock
        self.address_factor = address_factor
        self.clock = clock or (time.time if store is not None else time.monotonic)
        self.store = store
        self._records: dict[str, Record] = {}
        self._mutex = threading.Lock()

    def check(self, *keys: str) -> None:
        """Raise LoginThrottled when any of ``keys`` is locked."""
        now = self.clock()
        if self.store is not None:
            from ..storage import throttle as throttle_store
            records = throttle_store.read(self.store.engine, keys)
        else:
            with self._mutex:
                records = {k: self._records[k] for k in keys if k in self._records}
        wait = max((Record(*r).locked_until - now for r in records.values()), default=0.0)
        if wait > 0:
            raise LoginThrottled(wait)

    def failure(self, *keys: str) -> None:
        now = self.clock()
        if self.store is not None:
            from ..storage import throttle as throttle_store
            throttle_store.change(self.store.engine, keys,
                                  lambda rec, key: self._after_failure(Record(*rec), now, key))
            return
        with self._mutex:
            for key in keys:
                self._records[key] = self._after_failure(self._records.get(key, EMPTY), now, key)

    def _after_failure(self, rec: Record, now: float, key: str = "") -> Record:
        failures = tuple(t for t in rec.failures if now - t < self.window) + (now,)
        limit = self.max_failures * (self.address_factor if key.startswith(CLIENT_KEY) else 1)
        if len(failures) >= limit:
            return Record((), now + min(self.lock * 2 ** rec.locks, self.max_lock), rec.locks + 1)
        return Record(failures, rec.locked_until, rec.locks)

    def success(self, *keys: str) -> None:
        if self.store is not None:
            from ..storage import throttle as throttle_store
            throttle_store.forget(self.store.engine, keys)
            return
        with self._mutex:
            for key in keys:
                self._records.pop(key, None)


#: the kind of the keys that count an address's failures (see :class:`Throttle`'s ``address_factor``)
CLIENT_KEY = "client"


def throttle_key(kind: str, value: str) -> str:
    """``kind:value``, or ``kind#<sha256>`` when that would be longer than the store keeps (300)."""
    key = f"{kind}:{value}"
    return key if len(key) <= 300 else f"{kind}#{hashlib.sha256(value.encode('utf-8')).hexdigest()}"


def store_throttle(store) -> Throttle:
    """The throttle kept in ``store`` with the default limits."""
    return Throttle(store=store)


def authenticate(store, name: str, password: str, *, client: str = "",
                 throttle: Throttle | None = None) -> dict | None:
    """The user ``{"name", "role"}`` when the password is right, else None.

    Raises LoginThrottled (before checking the password) while the name or the client is locked.
    Failures count in ``store`` unless another ``throttle`` is given.
    """
    throttle = throttle or store_throttle(store)
    keys = (throttle_key("user", name.strip().lower()),) + ((throttle_key(CLIENT_KEY, client),) if client else ())
    throttle.check(*keys)
    user = store.user(name.strip()) if name.strip() else None
    ok = verify_password(user["password_hash"] if user else _dummy_hash(), password) and user is not None
    if not ok:
        throttle.failure(*keys)
        return None
    throttle.success(*keys)
    return {"name": user["name"], "role": user["role"]}


def token_hash(token: str) -> str:
    """Tokens are long random strings, so a plain SHA-256 (not a slow password hash) protects them."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_upload_token(store, name: str, label: str = "") -> str:
    """A new random upload token for user ``name``; only its hash is stored, so show it once."""
    token = "mtlb_" + secrets.token_urlsafe(32)
    store.add_upload_token(name, token_hash(token), label)
    return token


def authenticate_token(store, token: str, *, client: str = "", throttle: Throttle | None = None) -> dict | None:
    """The token's user ``{"name", "role"}``, or None.

    Failures count towards the token tried (its hash: a token retried is locked, another team's is not)
    and towards the client address when it is known."""
    throttle = throttle or store_throttle(store)
    keys = (throttle_key("token", token_hash(token.strip())[:32]),) \
        + ((throttle_key(CLIENT_KEY, client),) if client else ())
    throttle.check(*keys)
    user = store.token_user(token_hash(token.strip())) if token.strip() else None
    if user is None:
        throttle.failure(*keys)
        return None
    throttle.success(*keys)
    return {"name": user["name"], "role": user["role"]}


def create_user(store, name: str, password: str, role: str) -> None:
    """Add a user with a hashed password (the name must be new, the role one of ROLES)."""
    if role not in ROLES:
        raise InputError(f"unknown role {role!r} ({' | '.join(ROLES)})", code="unknown_role", value=role)
    if not name.strip() or name != name.strip():
        raise InputError("a user name must be non-empty with no surrounding spaces", code="bad_user_name",
                         value=name)
    store.add_user(name, hash_password(password), role)
