"""The demo store's organiser and metric-developer accounts (issue 42 §2): `mtlb demo` makes them for a
store that holds nothing but the demo, with passwords made for that store, prints them (every time), `mtlb
user list` shows them, and the Log in page shows them while that store is served. A password of one demo
store opens no other store, and a store holding other work never gets them."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import update

from leaderboard.accounts.auth import authenticate, create_user, hash_password
from leaderboard.cli import main
from leaderboard.publish.demo import DEMO_CAMPAIGN, SIMULATED_CAMPAIGN, WMT21_CAMPAIGN, ensure_demo_accounts
from leaderboard.storage import Store
from leaderboard.storage import models as m
from leaderboard.webapp.markdown import md_escape
from stores import copy_store
from test_app_pages import fresh_store, run_app

pytestmark = pytest.mark.xdist_group("demo")  # with tests/test_demo.py: the demo's statistics computed once

PRINTED = re.compile(r"^\s+(organiser|metric developer)\s+user (\S+)\s+password (\S+)$", re.M)


def printed_accounts(text: str) -> dict[str, tuple[str, str]]:
    """role words → (user name, password) as `mtlb demo` prints them."""
    return {role: (name, password) for role, name, password in PRINTED.findall(text)}


def demo_loaded(store: Store) -> None:
    """The three demo campaigns' names (no data): `mtlb demo` then says they are loaded and changes nothing."""
    for name in (DEMO_CAMPAIGN, WMT21_CAMPAIGN, SIMULATED_CAMPAIGN):
        store.create_campaign(name)


def listed_users(url: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["user", "list", "--database-url", url, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_mtlb_demo_prints_accounts_that_open_this_store_only(demo_template, tmp_path, capsys):
    # a store holding the demo as `mtlb demo` loads it (conftest's demo_template, loaded once: tests/test_demo.py
    # checks loading it) and no account yet: `mtlb demo` makes the accounts for it
    url = f"sqlite:///{copy_store(demo_template, tmp_path / 'demo')}"
    assert not any(u["demo"] for u in listed_users(url, capsys))
    assert main(["demo", "--database-url", url]) == 0
    out = capsys.readouterr().out
    accounts = printed_accounts(out)
    assert set(accounts) == {"organiser", "metric developer"}, out
    store = Store(url)
    for role, (name, password) in accounts.items():
        assert authenticate(store, name, password) == {"name": name, "role": role.replace(" ", "-")}
        assert len(password) >= 16 and password.isalnum()
    users = {u["name"]: u for u in listed_users(url, capsys)}
    assert {users[name]["role"] for name, _ in accounts.values()} == {"organiser", "metric-developer"}
    assert all(users[name]["demo"] is True for name, _ in accounts.values())
    assert not any(u["demo"] for name, u in users.items() if name not in dict(accounts.values()))  # the teams
    # `make run` runs it every time: the same accounts are printed again, nothing changes
    assert main(["demo", "--database-url", url]) == 0
    again = capsys.readouterr().out
    assert "already loaded" in again and printed_accounts(again) == accounts
    # another demo store: its own passwords; this store's open nothing there
    other_url = f"sqlite:///{tmp_path / 'other.sqlite'}"
    demo_loaded(Store(other_url))
    assert main(["demo", "--database-url", other_url]) == 0
    other = printed_accounts(capsys.readouterr().out)
    assert [name for name, _ in other.values()] == [name for name, _ in accounts.values()]
    for role, (name, password) in accounts.items():
        assert other[role][1] != password
        assert authenticate(Store(other_url), name, password) is None


def test_a_store_with_other_work_gets_no_demo_accounts(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'work.sqlite'}"
    store = Store(url)
    demo_loaded(store)
    store.create_campaign("wmt26-general")
    assert main(["demo", "--database-url", url]) == 0
    out = capsys.readouterr().out
    assert not printed_accounts(out)
    assert "no demo accounts" in out and "'wmt26-general'" in out and "mtlb user add" in out
    assert listed_users(url, capsys) == []
    # an account of its own is other work too
    url2 = f"sqlite:///{tmp_path / 'accounts.sqlite'}"
    store2 = Store(url2)
    create_user(store2, "alice", "alice-long-password", "organiser")
    made = ensure_demo_accounts(store2)
    assert made["accounts"] == [] and "account 'alice'" in made["not_created"]
    assert [u["name"] for u in listed_users(url2, capsys)] == ["alice"]


def test_demo_without_accounts_for_deployments(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'deployed.sqlite'}"
    demo_loaded(Store(url))
    assert main(["demo", "--database-url", url, "--no-accounts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accounts"] == []
    assert listed_users(url, capsys) == []


def test_demo_accounts_are_kept_once_made(tmp_path):
    """Once made, a store's demo accounts stay as they are, even after other work was added to the store."""
    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    first = ensure_demo_accounts(store)["accounts"]
    assert [a["role"] for a in first] == ["organiser", "metric-developer"]
    store.create_campaign("tried-in-the-demo")
    assert ensure_demo_accounts(store) == {"accounts": first, "not_created": None}


def test_log_in_page_shows_the_demo_accounts_and_they_log_in(tmp_path, monkeypatch):
    store = fresh_store(tmp_path, monkeypatch)
    demo_loaded(store)
    accounts = {a["role"]: a for a in ensure_demo_accounts(store)["accounts"]}
    at = run_app("login.py")
    shown = " ".join(i.value for i in at.info)
    assert "Demo accounts" in shown and "exist only in it" in shown
    for account in accounts.values():
        assert f"**{md_escape(account['name'])}**" in shown and f"**{account['password']}**" in shown
    organiser = accounts["organiser"]
    at.text_input(key="login_name").set_value(organiser["name"])
    at.text_input(key="login_password").set_value(organiser["password"])
    at.button[0].click().run()
    assert at.session_state["user"] == {"name": organiser["name"], "role": "organiser"}
    developer = accounts["metric-developer"]
    at = run_app("login.py")
    at.text_input(key="login_name").set_value(developer["name"])
    at.text_input(key="login_password").set_value(developer["password"])
    at.button[0].click().run()
    assert at.session_state["user"] == {"name": developer["name"], "role": "metric-developer"}


def test_log_in_page_shows_no_password_that_does_not_open_its_account(tmp_path, monkeypatch):
    """An account whose password was changed after the demo made it is not shown; a demo store without
    demo accounts says how to get them; a store that is no demo says nothing of them."""
    store = fresh_store(tmp_path, monkeypatch)
    demo_loaded(store)
    accounts = ensure_demo_accounts(store)["accounts"]
    changed = accounts[0]
    with store.engine.begin() as conn:
        conn.execute(update(m.users).where(m.users.c.name == changed["name"])
                     .values(password_hash=hash_password("changed-by-the-admin")))
    shown = " ".join(i.value for i in run_app("login.py").info)
    assert changed["password"] not in shown and changed["name"] not in shown
    assert accounts[1]["password"] in shown
    with store.engine.begin() as conn:
        conn.execute(m.demo_accounts.delete())
    shown = " ".join(i.value for i in run_app("login.py").info)
    assert "make run" in shown and "Demo accounts" not in shown


def test_log_in_page_of_a_store_that_is_no_demo(tmp_path, monkeypatch):
    fresh_store(tmp_path, monkeypatch)
    at = run_app("login.py")
    assert not at.info
    assert any("created by an administrator on the command line" in c.value for c in at.caption)


def test_demo_accounts_are_listed_and_can_be_removed(tmp_path, capsys):
    """`mtlb user list` marks the demo accounts; `mtlb user remove` takes one away (with what the Log in
    page would show of it), and refuses a team's account."""
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    store = Store(url)
    demo_loaded(store)
    accounts = ensure_demo_accounts(store)["accounts"]
    capsys.readouterr()
    assert main(["user", "list", "--database-url", url]) == 0
    listing = capsys.readouterr().out
    assert "demo account" in listing.splitlines()[0]
    assert all(line.rstrip().endswith("yes") for line in listing.splitlines()[1:])
    organiser = accounts[0]
    assert main(["user", "remove", organiser["name"], "--database-url", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": organiser["name"], "role": "organiser", "removed": True}
    assert authenticate(store, organiser["name"], organiser["password"]) is None
    assert [a["name"] for a in ensure_demo_accounts(store)["accounts"]] == [accounts[1]["name"]]
    from leaderboard.outputs.service import add_team
    add_team(store, "team-x", verified=True)
    assert main(["user", "remove", "team-x", "--database-url", url]) == 2
    assert "only organiser and metric-developer accounts" in capsys.readouterr().err
    assert main(["user", "remove", "nobody", "--database-url", url]) == 2
