"""Password hashing, login throttling and the ``mtlb user`` command."""

from __future__ import annotations

import io
import json

import pytest

from leaderboard.accounts.auth import (LoginThrottled, Throttle, authenticate, create_user, hash_password,
                              verify_password)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def store(tmp_path):
    from leaderboard.storage import Store
    return Store(f"sqlite:///{tmp_path / 'auth.sqlite'}")


def test_hash_is_argon2id_salted_and_verifies():
    h1, h2 = hash_password("correct horse"), hash_password("correct horse")
    assert h1.startswith("$argon2id$") and h1 != h2  # random salt
    assert verify_password(h1, "correct horse") and verify_password(h2, "correct horse")
    assert not verify_password(h1, "correct horsE")
    assert not verify_password("not-a-hash", "correct horse")


def test_short_password_refused():
    with pytest.raises(ValueError):
        hash_password("1234567")


def test_throttle_locks_after_failures_and_doubles():
    clock = Clock()
    t = Throttle(max_failures=3, window=60, lock=10, clock=clock)
    for _ in range(2):
        t.failure("user:a")
    t.check("user:a")  # two failures: still allowed
    t.failure("user:a")
    with pytest.raises(LoginThrottled) as err:
        t.check("user:a")
    assert err.value.retry_after == pytest.approx(10)
    t.check("user:b")  # other keys are not affected
    clock.now += 10.5
    t.check("user:a")
    for _ in range(3):
        t.failure("user:a")
    with pytest.raises(LoginThrottled) as err:
        t.check("user:a")
    assert err.value.retry_after == pytest.approx(20)  # the second lock is twice as long


def test_failures_outside_window_do_not_count():
    clock = Clock()
    t = Throttle(max_failures=3, window=60, lock=10, clock=clock)
    t.failure("k")
    t.failure("k")
    clock.now += 61
    t.failure("k")
    t.check("k")


def test_authenticate_roles_and_throttle(store):
    create_user(store, "ann", "organiser-pass", "organiser")
    create_user(store, "max", "developer-pass", "metric-developer")
    throttle = Throttle(max_failures=2, window=60, lock=30, clock=Clock())
    assert authenticate(store, "ann", "organiser-pass", throttle=throttle) == {"name": "ann", "role": "organiser"}
    assert authenticate(store, "max", "developer-pass", throttle=throttle)["role"] == "metric-developer"
    assert authenticate(store, "ann", "wrong", throttle=throttle) is None
    assert authenticate(store, "nobody", "organiser-pass", throttle=throttle) is None
    assert authenticate(store, "ann", "wrong", throttle=throttle) is None
    with pytest.raises(LoginThrottled):
        authenticate(store, "ann", "organiser-pass", throttle=throttle)
    # the stored value is a hash, never the password
    assert "organiser-pass" not in store.user("ann")["password_hash"]


def test_create_user_refuses_unknown_role_and_duplicates(store):
    from leaderboard.errors import InputError
    with pytest.raises(ValueError):
        create_user(store, "eve", "long-enough", "admin")
    create_user(store, "eve", "long-enough", "organiser")
    with pytest.raises(InputError):
        create_user(store, "eve", "long-enough", "organiser")


def test_cli_user_add_and_list(tmp_path, monkeypatch, capsys):
    from leaderboard.cli import main
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-password\n"))
    assert main(["user", "add", "olga", "--role", "organiser", "--password-stdin", "--database-url", url]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["user", "add", "bob", "--role", "organiser", "--password-stdin", "--database-url", url]) == 2
    capsys.readouterr()
    assert main(["user", "list", "--json", "--database-url", url]) == 0
    users = json.loads(capsys.readouterr().out)
    assert [(u["name"], u["role"]) for u in users] == [("olga", "organiser")]
    from leaderboard.storage import Store
    assert verify_password(Store(url).user("olga")["password_hash"], "s3cret-password")


def test_upload_tokens_are_stored_hashed_and_revocable(sqlite_url, capsys):
    import json

    from sqlalchemy import text

    from leaderboard.accounts.auth import Throttle, authenticate_token, create_user, token_hash
    from leaderboard.cli import main
    from leaderboard.storage import Store

    store = Store(sqlite_url)
    create_user(store, "dev", "a-long-password", "metric-developer")
    assert main(["user", "token", "dev", "--label", "laptop", "--database-url", sqlite_url, "--json"]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash, label FROM upload_tokens")).all()
    assert stored == [(token_hash(token), "laptop")] and token not in stored[0][0]
    throttle = Throttle()
    assert authenticate_token(store, token, client="x", throttle=throttle) == {"name": "dev", "role": "metric-developer"}
    assert authenticate_token(store, token + "x", client="x", throttle=throttle) is None
    assert main(["user", "token", "dev", "--revoke", "--database-url", sqlite_url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["revoked"] == 1
    assert authenticate_token(store, token, client="x", throttle=throttle) is None
    assert main(["user", "token", "nobody", "--database-url", sqlite_url]) == 2
