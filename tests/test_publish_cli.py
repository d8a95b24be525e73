"""`mtlb publish` (organisers only) and `mtlb published` (read-only exports) end to end."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from leaderboard.cli import main



@pytest.fixture()
def campaign_store(campaign_with_users):
    return campaign_with_users


def _publish(url, user, password, monkeypatch, *extra):
    monkeypatch.setenv("MTLB_PASSWORD", password)
    # the small campaign has no quality-control items: its judgments count as already filtered
    return main(["publish", "--campaign", "c1", "--user", user, "--database-url", url, "--json", "--qc", "none",
                 *extra])


def test_organiser_publishes_new_versions(campaign_store, monkeypatch, capsys):
    assert _publish(campaign_store, "alice", "a-long-password", monkeypatch) == 0
    first = json.loads(capsys.readouterr().out)["published"]
    assert [(p["lp"], p["assessment"], p["version"]) for p in first] == [("cs-en", "adequacy", 1)]
    assert _publish(campaign_store, "alice", "a-long-password", monkeypatch, "--note", "again") == 0
    assert json.loads(capsys.readouterr().out)["published"][0]["version"] == 2
    assert main(["published", "--campaign", "c1", "--database-url", campaign_store, "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [row["version"] for row in listing] == [1, 2] and {r["published_by"] for r in listing} == {"alice"}


def test_other_roles_and_wrong_passwords_are_refused(campaign_store, monkeypatch, capsys):
    assert _publish(campaign_store, "bob", "a-long-password", monkeypatch) == 2
    assert "only organisers can publish" in capsys.readouterr().err
    assert _publish(campaign_store, "alice", "wrong-password", monkeypatch) == 2
    assert "wrong user name or password" in capsys.readouterr().err
    assert main(["published", "--database-url", campaign_store, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # nothing was published


def test_published_exports(campaign_store, monkeypatch, capsys):
    assert _publish(campaign_store, "alice", "a-long-password", monkeypatch) == 0
    capsys.readouterr()
    base = ["published", "--campaign", "c1", "--lp", "cs-en", "--database-url", campaign_store]
    assert main(base + ["--json"]) == 0
    snap = json.loads(capsys.readouterr().out)
    systems = [s["system"] for s in snap["ranking"]["systems"]]
    assert snap["version"] == 1 and sorted(systems) == ["sys0", "sys1", "sys2"]
    assert main(base + ["--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert table["system"].tolist() == systems
    assert main(base + ["--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.startswith(r"\begin{table}") and all(name in tex for name in systems)
    assert main(base + ["--version", "7"]) == 2
    assert "version 7" in capsys.readouterr().err


def test_publish_resamples_and_seed_reach_the_snapshot(campaign_store, monkeypatch, capsys):
    base = ["published", "--campaign", "c1", "--lp", "cs-en", "--database-url", campaign_store, "--json"]
    assert _publish(campaign_store, "alice", "a-long-password", monkeypatch, "--resamples", "200", "--seed", "7") == 0
    capsys.readouterr()
    assert main(base) == 0
    ranking = json.loads(capsys.readouterr().out)["ranking"]
    assert "resamples:200" in ranking["signature"] and "seed:7" in ranking["signature"]
    for s in ranking["systems"]:
        lo, hi = s["ave_z_ci"]
        assert lo <= s["ave_z"] <= hi
        assert sum(s["rank_shares"]) == pytest.approx(1, abs=1e-3)
    # no resamples: no intervals, and the signature says so
    assert _publish(campaign_store, "alice", "a-long-password", monkeypatch, "--resamples", "0") == 0
    capsys.readouterr()
    assert main(base) == 0
    ranking = json.loads(capsys.readouterr().out)["ranking"]
    assert all(s.get("ave_z_ci") is None and s.get("rank_shares") is None for s in ranking["systems"])
    assert "resamples:200" not in ranking["signature"]
    assert _publish(campaign_store, "alice", "a-long-password", monkeypatch, "--resamples", "-1") == 2
    assert "--resamples must be 0 or more" in capsys.readouterr().err
