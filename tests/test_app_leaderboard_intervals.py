"""Leaderboard page: intervals from the published snapshot, human translations marked, rank stability,
a caption derived from the signature; older snapshots without intervals still render."""

from __future__ import annotations

import json

import numpy as np
import pytest

from leaderboard.publish.snapshots import rank
from leaderboard.storage.store import frame_hash
from leaderboard.webapp import charts

from test_app_pages import fresh_store, hand_ranking, make_judgments, run_app, table_frame


def _published(tmp_path, monkeypatch, alpha: float = 0.05):
    store = fresh_store(tmp_path, monkeypatch)
    frame = make_judgments("C", "cs-en", seed=3, segments=40)
    frame["system"] = frame["system"].replace({"sysB.2": "HUMAN-B"})
    ranking = rank(frame, qc="none", alpha=alpha, n_resamples=500, seed=7)[0]
    store.load_judgments(frame, file_name="c.csv", input_format="canonical")
    store.publish("C", "cs-en", "adequacy", ranking, data_hash=frame_hash(frame), publisher="t")
    old_frame = make_judgments("Old", "cs-en", seed=4)
    store.load_judgments(old_frame, file_name="old.csv", input_format="canonical")
    old = hand_ranking(old_frame, "cs-en", "sig-old")
    store.publish("Old", "cs-en", "adequacy", old, data_hash="x", publisher="t")
    return frame, ranking


def test_intervals_human_mark_and_caption_from_the_snapshot(tmp_path, monkeypatch):
    frame, ranking = _published(tmp_path, monkeypatch, alpha=0.01)
    at = run_app(params={"campaign": "C", "lp": "cs-en"})
    table = table_frame(at)
    assert list(table["System"]) == [s["system"] + (" †" if s["system"] == "HUMAN-B" else "")
                                     for s in ranking["systems"]]
    for row, s in zip(table.to_dict(orient="records"), ranking["systems"]):
        lo, hi = (float(v) for v in row["Ave. z 95% CI"].split(" – "))
        assert lo == pytest.approx(s["ave_z_ci"][0], abs=5e-4) and hi == pytest.approx(s["ave_z_ci"][1], abs=5e-4)
        assert lo <= float(row["Ave. z"]) <= hi
        lo, hi = (float(v) for v in row["Ave. 95% CI"].split(" – "))
        assert lo - 0.05 <= s["ave"] <= hi + 0.05
    # the point estimates are the per-system means of per-segment means, computed here from the judgments
    seg = frame.groupby(["system", "segment"])["z"].mean().groupby("system").mean()
    assert [float(v) for v in table["Ave. z"]] == pytest.approx([seg[s["system"]] for s in ranking["systems"]],
                                                                abs=5e-4)
    text = " ".join(c.value for c in at.caption)
    assert "p < 0.01" in text and "Mann-Whitney" in text and "500 resamples, seed 7" in text
    assert "human translation" in text and "Wilcoxon rank-sum test (p < 0.05)" not in text
    assert [t.label for t in at.tabs] == ["Table", "Chart", "Rank stability", "Versions"]
    for tab in ("Chart", "Rank stability"):  # each chart on its own tab
        assert len(run_app(params={"campaign": "C", "lp": "cs-en", "tab": tab}).get("plotly_chart")) == 1


def test_older_snapshot_without_intervals_still_renders(tmp_path, monkeypatch):
    _published(tmp_path, monkeypatch)
    at = run_app(params={"campaign": "Old", "lp": "cs-en"})
    table = table_frame(at)
    assert set(table["Ave. z 95% CI"]) == {"—"} and set(table["Ave. 95% CI"]) == {"—"}
    text = " ".join(c.value for c in at.caption)
    assert "Intervals: none in this version" in text
    assert len(run_app(params={"campaign": "Old", "lp": "cs-en", "tab": "Chart"}).get("plotly_chart")) == 1
    at = run_app(params={"campaign": "Old", "lp": "cs-en", "tab": "Rank stability"})
    assert not at.get("plotly_chart") and "Rank stability: —" in " ".join(c.value for c in at.caption)


def test_chart_error_bars_human_trace_and_rank_shares(tmp_path, monkeypatch):
    _, ranking = _published(tmp_path, monkeypatch)
    ranking = json.loads(json.dumps(ranking))
    fig = charts.ranking_figure(ranking)
    by_name = {t.name: t for t in fig.data}
    assert set(by_name) == {"MT system", "human translation"}
    human = by_name["human translation"]
    s = next(x for x in ranking["systems"] if x["system"] == "HUMAN-B")
    assert list(human.x) == [s["ave_z"]]
    assert human.error_x.array[0] == pytest.approx(s["ave_z_ci"][1] - s["ave_z"])
    assert human.error_x.arrayminus[0] == pytest.approx(s["ave_z"] - s["ave_z_ci"][0])
    assert fig.layout.xaxis.title.text.startswith("Ave z")
    heat = charts.rank_shares_figure(ranking).data[0]
    z = np.asarray(heat.z)
    np.testing.assert_allclose(z.sum(axis=1), 100, atol=0.2)
    np.testing.assert_allclose(z.sum(axis=0), 100, atol=0.2)
    old = hand_ranking(make_judgments("Old", "cs-en", seed=4), "cs-en", "sig-old")
    assert charts.rank_shares_figure(old) is None
    assert not any(t.error_x.array for t in charts.ranking_figure(old).data)


def test_significance_table_marks_the_human_translation_as_the_leaderboard_does(tmp_path, monkeypatch):
    """Issue 42.9: the Leaderboard showed "HUMAN-B †", the Significance page's table a bare "HUMAN-B"."""
    _, ranking = _published(tmp_path, monkeypatch)
    board = list(table_frame(run_app(params={"campaign": "C", "lp": "cs-en"}))["System"])
    assert "HUMAN-B †" in board
    at = run_app("heatmap.py", params={"campaign": "C", "lp": "cs-en"})
    rows = list(table_frame(at)["better ↓ than →"])
    # the same names, marked the same way, numbered in the same order
    assert rows == [f"{i + 1}. {name}" for i, name in enumerate(board)]
    assert "† human translation" in " ".join(c.value for c in at.caption)
    # the heat map's axes too
    at = run_app("heatmap.py", params={"campaign": "C", "lp": "cs-en", "tab": "Heat map"})
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "HUMAN-B †" in figure["data"][0]["y"] and "HUMAN-B †" in figure["data"][0]["x"]
