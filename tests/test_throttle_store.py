"""Login throttling kept in the store: the same rules as the in-memory throttle, shared by every
process on one database and kept across restarts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from leaderboard.accounts.auth import LoginThrottled, Throttle, authenticate, create_user, throttle_key
from leaderboard.storage import Store
from leaderboard.storage.db import make_engine


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def two_stores(url: str) -> tuple[Store, Store]:
    """Two stores with engines of their own on one database, as two app replicas have."""
    first = Store(url)
    return first, Store(engine=make_engine(url))


def test_locks_after_failures_and_doubles_across_stores(db_url):
    a, b = two_stores(db_url)
    clock = Clock()
    ta = Throttle(max_failures=3, window=60, lock=10, clock=clock, store=a)
    tb = Throttle(max_failures=3, window=60, lock=10, clock=clock, store=b)
    ta.failure("user:a")
    tb.failure("user:a")
    ta.check("user:a")  # two failures, counted by two processes: still allowed
    tb.failure("user:a")
    for t in (ta, tb):
        with pytest.raises(LoginThrottled) as err:
            t.check("user:a")
        assert err.value.retry_after == pytest.approx(10)
    tb.check("user:b")  # other keys are not affected
    clock.now += 10.5
    ta.check("user:a")
    for _ in range(3):
        tb.failure("user:a")
    with pytest.raises(LoginThrottled) as err:
        ta.check("user:a")
    assert err.value.retry_after == pytest.approx(20)  # the second lock is twice as long
    ta.success("user:a")
    tb.check("user:a")
    tb.failure("user:a")  # after a success the count and the doubling start again
    tb.failure("user:a")
    tb.failure("user:a")
    with pytest.raises(LoginThrottled) as err:
        ta.check("user:a")
    assert err.value.retry_after == pytest.approx(10)


def test_failures_outside_the_window_do_not_count(db_url):
    store = Store(db_url)
    clock = Clock()
    t = Throttle(max_failures=3, window=60, lock=10, clock=clock, store=store)
    t.failure("k")
    t.failure("k")
    clock.now += 61
    t.failure("k")
    t.check("k")


def test_lock_survives_a_restart(db_url):
    store = Store(db_url)
    create_user(store, "ann", "organiser-pass", "organiser")
    for _ in range(5):
        assert authenticate(store, "ann", "wrong password", client="10.0.0.9") is None
    store.engine.dispose()
    restarted = Store(engine=make_engine(db_url))
    with pytest.raises(LoginThrottled):
        authenticate(restarted, "ann", "organiser-pass")  # the name is locked, whoever asks
    # the client's own count survives too, but five failures of one account do not lock its address
    assert authenticate(restarted, "someone", "x", client="10.0.0.9") is None


def test_failures_in_another_process_lock_this_one(db_url, tmp_path):
    store = Store(db_url)
    create_user(store, "max", "developer-pass", "metric-developer")
    child = ("import sys\nfrom leaderboard.accounts.auth import authenticate\nfrom leaderboard.storage import Store\n"
             "s = Store(sys.argv[1])\n"
             "print(sum(authenticate(s, 'max', 'nope', client='c1') is None for _ in range(5)))\n")
    out = subprocess.run([sys.executable, "-c", child, db_url], capture_output=True, text=True, timeout=120,
                         env={**os.environ})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "5"
    with pytest.raises(LoginThrottled) as err:
        authenticate(store, "max", "developer-pass")
    assert 0 < err.value.retry_after <= 30


def test_long_keys_fit_the_store(db_url):
    store = Store(db_url)
    t = Throttle(max_failures=1, window=60, lock=10, clock=Clock(), store=store)
    key = throttle_key("user", "x" * 1000)
    assert len(key) <= 300
    t.failure(key)
    with pytest.raises(LoginThrottled):
        t.check(key)
