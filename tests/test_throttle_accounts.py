"""The sign-in throttle locks the account or token that fails, never another: failures are counted per
account (password sign-in) or per token tried, and per client address only when it is known (with a
higher limit, so one account's failures do not lock its neighbours at the same address). On the store's
throttle, both back ends."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from leaderboard.accounts.auth import LoginThrottled, authenticate, authenticate_token, hash_password, issue_upload_token
from leaderboard.outputs import service
from leaderboard.storage import Store


PASSWORDS = {"alice": "alice-password", "bob": "bob-password!"}


@pytest.fixture(scope="module")
def password_hashes() -> dict[str, str]:
    """The accounts' argon2 hashes, computed once for the module (each costs a full hash)."""
    return {name: hash_password(password) for name, password in PASSWORDS.items()}


@pytest.fixture()
def store(db_url, password_hashes) -> Store:
    """A new store with the organisers alice and bob (stored as ``create_user`` stores them)."""
    store = Store(db_url)
    for name, password_hash in password_hashes.items():
        store.add_user(name, password_hash, "organiser")
    return store


@pytest.mark.parametrize("client", ["", "203.0.113.7"])
def test_bad_passwords_for_one_account_do_not_lock_another(store, client):
    for _ in range(6):
        try:
            assert authenticate(store, "alice", "wrong-password", client=client) is None
        except LoginThrottled:
            pass
    with pytest.raises(LoginThrottled):
        authenticate(store, "alice", "alice-password", client=client)
    assert authenticate(store, "bob", "bob-password!", client=client) == {"name": "bob", "role": "organiser"}


@pytest.mark.parametrize("client", ["", "203.0.113.7"])
def test_bad_tokens_do_not_lock_out_other_teams(store, client):
    for team in ("T1", "T2"):
        service.add_team(store, team, verified=True)
    good = {team: issue_upload_token(store, team) for team in ("T1", "T2")}
    for k in range(8):
        try:
            assert authenticate_token(store, f"mtlb_guess{k}", client=client) is None
        except LoginThrottled:
            pass
    assert authenticate_token(store, good["T1"], client=client)["name"] == "T1"
    # one token tried again and again is locked itself; the other team still signs in
    for _ in range(6):
        try:
            authenticate_token(store, "mtlb_same-wrong-token", client=client)
        except LoginThrottled:
            pass
    with pytest.raises(LoginThrottled):
        authenticate_token(store, "mtlb_same-wrong-token", client=client)
    assert authenticate_token(store, good["T2"], client=client)["name"] == "T2"


def test_a_known_address_is_throttled_after_many_failures(store, monkeypatch):
    """Guessing across many accounts from one address is still slowed down (by the address key)."""
    # every unknown name is checked against the stand-in hash (50 times before the address locks); what
    # is checked here is the counting, so that hash is a cheap one (bob's own hash stays the real one)
    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("not a real password")
    monkeypatch.setattr("leaderboard.accounts.auth._dummy_hash", lambda: cheap)
    with pytest.raises(LoginThrottled):
        for k in range(200):
            authenticate(store, f"user{k}", "wrong-password", client="198.51.100.9")
    assert authenticate(store, "bob", "bob-password!", client="192.0.2.1")["name"] == "bob"
