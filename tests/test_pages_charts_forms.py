"""Across years (default campaigns, anchors), Teams and Test sets forms, charts and tables, QC counts per
language pair and ``mtlb published`` in a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from htmltables import page_figures, page_tables
from test_app_pages import (  # noqa: F401 (fixture)
    ORGANISER, app_env, fresh_store, hand_ranking, make_judgments, run_app, unmd,
)
from test_outputs_app import _sign_in, released  # noqa: F401 (fixture)

ROOT = Path(__file__).resolve().parents[1]


# ---- Across years: which campaigns the page opens on ------------------------------------------------
def _publish(store, campaign: str, lp: str, seed: int, note: str = "", ranking: dict | None = None) -> dict:
    from leaderboard.storage.store import frame_hash
    frame = make_judgments(campaign, lp, seed=seed, segments=12)
    store.load_judgments(frame, file_name=f"{campaign}-{lp}.csv", input_format="canonical")
    ranking = ranking or hand_ranking(frame, lp, f"sig-{campaign}-{lp}")
    store.publish(campaign, lp, "adequacy", ranking, data_hash=frame_hash(frame), publisher="tester", note=note)
    return ranking


def test_across_years_opens_on_real_campaigns_in_time_order_not_the_simulated_one(tmp_path, monkeypatch):
    store = fresh_store(tmp_path, monkeypatch)
    _publish(store, "WMT21 cs-en", "cs-en", 1)
    _publish(store, "WMT22 cs-en", "cs-en", 2)
    _publish(store, "Simulated crowd (demo)", "de-en", 3, note="simulated crowd campaign")
    _publish(store, "WMT23 de-en", "de-en", 4)  # a new campaign, published last, shares de-en with the simulated one
    at = run_app("longitudinal.py")
    assert at.multiselect(key="years").value == ["WMT21 cs-en", "WMT22 cs-en"]
    # the campaigns are offered oldest first
    assert list(at.multiselect(key="years").options) == ["WMT21 cs-en", "WMT22 cs-en", "WMT23 de-en",
                                                         "Simulated crowd (demo)"]
    # without a calibration system the warning speaks plainly: no command-line option in it
    at.text_input(key="calibration").set_value("").run()
    warnings = [unmd(w.value) for w in at.warning]
    assert any("share no calibration run" in w for w in warnings)
    assert not any("--" in w for w in warnings)


def test_across_years_opens_older_first_whatever_the_names_sort_to(tmp_path, monkeypatch):
    store = fresh_store(tmp_path, monkeypatch)
    _publish(store, "News 2023", "cs-en", 1)
    _publish(store, "Yearly 2021", "cs-en", 2)  # published later, but from an earlier year
    at = run_app("longitudinal.py")
    assert at.multiselect(key="years").value == ["Yearly 2021", "News 2023"]


def test_campaign_kinds_years_and_pairs_below_the_views():
    from leaderboard.human.longitudinal import (
        campaign_kind, campaign_year, campaigns_in_time_order, default_campaign_pairs,
    )
    assert campaign_kind("Simulated crowd (demo)") == "simulated"
    assert campaign_kind("Pilot", ["simulated crowd campaign (leaderboard.simulate)"]) == "simulated"
    assert campaign_kind("WMT22 cs-en (demo)", ["", None]) == "real"
    assert (campaign_year("WMT22 cs-en (demo)"), campaign_year("Y2021"), campaign_year("wmt-19"),
            campaign_year("Pilot")) == (2022, 2021, 2019, None)
    t = pd.Timestamp("2026-01-01", tz="UTC")
    snaps = pd.DataFrame([
        ("Sim B", "de-en", "adequacy", t + pd.Timedelta(days=3), "simulated"),
        ("Sim A", "de-en", "adequacy", t + pd.Timedelta(days=1), "simulated"),
        ("WMT22 x", "de-en", "adequacy", t + pd.Timedelta(days=2), ""),
        ("WMT20 x", "cs-en", "adequacy", t + pd.Timedelta(days=4), ""),
        ("WMT21 x", "cs-en", "adequacy", t + pd.Timedelta(days=5), ""),
    ], columns=["campaign", "lp", "assessment", "published_at", "note"])
    assert campaigns_in_time_order(snaps) == ["WMT20 x", "WMT21 x", "WMT22 x", "Sim A", "Sim B"]
    pairs = default_campaign_pairs(snaps)
    assert [(p["from"], p["to"], p["kind"]) for p in pairs] == [
        ("WMT20 x", "WMT21 x", "real"), ("Sim A", "Sim B", "simulated"),
        ("WMT22 x", "Sim B", "mixed"), ("WMT22 x", "Sim A", "mixed")]  # newer later campaign first
    assert pairs[0]["shared"] == [("cs-en", "adequacy")]


# ---- the gain with each anchor ------------------------------------------------------------------------
#: two years of one pair; by hand: anchor sysA -> best sysB (60) / sysC (54), Δ 70-75 = -5, gain -6-5 = -11;
#: anchor sysB -> best sysA 70 / 75, Δ 60-50 = +10, gain +15; anchor sysC -> best sysA, Δ 50-54 = -4, gain +1
AVES = {"Y2021": {"sysA.1": 70.0, "sysB.2": 60.0, "sysC.3": 50.0, "HUMAN-B": 45.0},
        "Y2022": {"sysA.1": 75.0, "sysB.2": 50.0, "sysC.3": 54.0, "HUMAN-B": 40.0}}
EXPECTED_GAINS = {"sysA": (54 - 60) + (70 - 75), "sysB": (75 - 70) + (60 - 50), "sysC": (75 - 70) + (50 - 54)}


def _ranking(year: str) -> dict:
    aves = sorted(AVES[year].items(), key=lambda kv: -kv[1])
    return {"lp": "cs-en", "assessment": "adequacy", "signature": f"sig-{year}",
            "systems": [{"system": s, "ave": a, "ave_z": (a - 60) / 10, "n": 12, "n_all": 48, "rank_lo": i + 1,
                         "rank_hi": i + 1} for i, (s, a) in enumerate(aves)]}


def test_anchor_gains_by_hand():
    from leaderboard.human.longitudinal import anchor_gains, years_from_rankings
    a = years_from_rankings("Y2021", [_ranking("Y2021")])[("cs-en", "adequacy")]
    b = years_from_rankings("Y2022", [_ranking("Y2022")])[("cs-en", "adequacy")]
    out = anchor_gains(a, b, used="sysA")
    got = {r["anchor"]: r["gain"] for r in out["anchors"]}
    assert got == pytest.approx(EXPECTED_GAINS)  # HUMAN-B, judged in both years, is no anchor: a human translation
    assert [r["anchor"] for r in out["anchors"]] == ["sysB", "sysC", "sysA"]  # largest gain first
    assert out["positive"] == ["sysB", "sysC"] and out["negative"] == ["sysA"] and out["signs_disagree"] is True
    assert out["used"] == "sysA" and out["used_gain"] == pytest.approx(-11.0)
    row = next(r for r in out["anchors"] if r["anchor"] == "sysA")
    assert (row["best_from_system"], row["best_to_system"], row["delta"]) == ("sysB.2", "sysC.3", -5.0)
    assert "--" not in out["statement"] and "sysB (+15.00)" in out["statement"] and "sysA (-11.00)" in out["statement"]
    # one sign only: no warning
    same = anchor_gains(a, b, overrides={"sysA.1": "", "sysC.3": ""})  # only sysB judged in both
    assert [r["anchor"] for r in same["anchors"]] == ["sysB"] and same["anchors"][0]["gain"] == pytest.approx(15)
    assert same["signs_disagree"] is False and same["statement"] is None and same["negative"] == []
    # the anchor of longitudinal() is the calibration system, and its gain equals the calibrated gain
    from leaderboard.human.longitudinal import longitudinal
    result = longitudinal([("Y2021", {("cs-en", "adequacy"): a}), ("Y2022", {("cs-en", "adequacy"): b})],
                          calibration="sysC", best_by="raw")
    (comp,) = result["comparisons"]
    assert comp["anchors"]["used"] == "sysC"
    assert comp["anchors"]["used_gain"] == pytest.approx(comp["calibration"]["raw"]["gain"])


def test_anchor_gains_on_the_wmt21_wmt22_cs_en_releases(shared):
    """Each anchor's gain against the organisers' published tables (raw Ave, best by Ave z, no humans)."""
    from test_longitudinal_cli import published, run_cli, year_args
    rc, text = run_cli(["longitudinal", *year_args(shared, ["cs-en"]), "--lp", "cs-en", "--calibration", "Online-Y",
                        "--exclude", "HUMAN*", "--json"])
    assert rc == 0
    (comp,) = json.loads(text)["comparisons"]
    anchors = comp["anchors"]
    p21, p22 = published(shared, "2021", "cs-en"), published(shared, "2022", "cs-en")
    pairs = {"Online-A": ("Online-A.5", "Online-A.10"), "Online-B": ("Online-B.0", "Online-B.0"),
             "Online-G": ("Online-G.6", "Online-G.9"), "Online-W": ("Online-W.2", "Online-W.2"),
             "Online-Y": ("Online-Y.3", "Online-Y.4"),
             "CUNI-DocTransformer": ("CUNI-DocTransformer.4", "CUNI-DocTransformer.6")}
    for name, (s21, s22) in pairs.items():
        best21 = next(s for s in p21.index if s != s21 and not s.startswith("HUMAN"))
        best22 = next(s for s in p22.index if s != s22 and not s.startswith("HUMAN"))
        expect = (p22.loc[best22, "RAW.SCR"] - p21.loc[best21, "RAW.SCR"]) + (p21.loc[s21, "RAW.SCR"]
                                                                              - p22.loc[s22, "RAW.SCR"])
        row = next(r for r in anchors["anchors"] if r["anchor"] == name)
        assert row["gain"] == pytest.approx(expect, abs=0.01), name
    gains = {r["anchor"]: round(r["gain"], 2) for r in anchors["anchors"]}
    assert gains["Online-Y"] == 3.00 and gains["Online-B"] == -0.51  # the anchor flips the sign
    assert anchors["signs_disagree"] is True and anchors["used"] == "Online-Y"
    assert anchors["used_gain"] == pytest.approx(comp["calibration"]["raw"]["gain"])
    # the existing keys are all still there
    assert {"lp", "assessment", "from", "to", "best", "shared_systems", "calibration", "statement",
            "unmatched"} <= set(comp)
    rc, text = run_cli(["longitudinal", *year_args(shared, ["cs-en"]), "--lp", "cs-en", "--calibration", "Online-Y"])
    assert "Online-B -0.51" in text and "warning: From 2021 to 2022, whether the best system improved depends" in text


def test_across_years_page_names_the_anchor_and_warns_when_it_flips_the_sign(tmp_path, monkeypatch):
    store = fresh_store(tmp_path, monkeypatch)
    for seed, year in enumerate(("Y2021", "Y2022")):
        _publish(store, year, "cs-en", seed, ranking=_ranking(year))
    at = run_app("longitudinal.py")
    assert at.text_input(key="calibration").value == "sysA"  # all have 12 segments: the first by name
    texts = [unmd(m.value) for m in at.markdown]
    assert any("Anchor (calibration system) used: sysA (chosen by the page" in t for t in texts), texts
    (warning,) = [unmd(w.value) for w in at.warning if "depends on which system" in unmd(w.value)]
    assert "sysB (+15.00)" in warning and "sysC (+1.00)" in warning and "sysA (-11.00)" in warning
    assert "This comparison uses sysA (-11.00)" in warning and "--" not in warning
    from leaderboard.webapp.pages.longitudinal import ANCHOR_COLUMNS
    back = {h: k for k, (h, _) in ANCHOR_COLUMNS.items()}
    table = next(t.rename(columns=back) for t in page_tables(at) if "Anchor (assumed unchanged)" in t.columns)
    assert dict(zip(table["anchor"], table["gain"].astype(float))) == pytest.approx(EXPECTED_GAINS, abs=0.005)
    assert list(table.loc[table["used"] == "yes", "anchor"]) == ["sysA"]
    # typed in: the page says so; with sysB the gain is +15 and the warning says another anchor reverses it
    at.text_input(key="calibration").set_value("sysB").run()
    assert any("used: sysB (typed in above)" in unmd(m.value) for m in at.markdown)
    assert any("This comparison uses sysB (+15.00)" in unmd(w.value) for w in at.warning)


# ---- Teams upload: the system's name by the same rule as mtlb outputs submit ---------------------------
def test_web_upload_and_cli_name_a_system_after_the_wmt_file_name(released):  # noqa: F811
    from leaderboard.accounts.auth import issue_upload_token
    from leaderboard.cli import main
    from leaderboard.outputs.service import add_team
    from leaderboard.storage.outputs import OutputStore
    store, files = released["store"], released["files"]
    add_team(store, "Lab", verified=True)
    at = _sign_in(run_app("teams.py"), issue_upload_token(store, "Lab"))
    at.file_uploader(key="sub_file").set_value(("newstest.en-de.hyp.MySys.de", files["good"], "text/plain")).run()
    assert at.text_input(key="sub_system").placeholder == "default: MySys"
    at.button(key="sub_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    subs = OutputStore(store).submissions()
    assert list(subs["system"]) == ["MySys"]
    # the command line, same rule: the WMT file name's <system>; a plain file name: the team's name
    add_team(store, "Other", verified=True)
    with tempfile.TemporaryDirectory() as folder:
        for name in ("newstest.en-de.hyp.OtherSys.de", "plain.txt"):
            path = Path(folder) / name
            path.write_bytes(files["fair"] if name.startswith("news") else files["good"])
            assert main(["outputs", "submit", str(path), "--campaign", "Shared", "--lp", "en-de",
                         "--team", "Other"]) == 0
    subs = OutputStore(store).submissions()
    assert list(subs.loc[subs["team"] == "Other", "system"]) == ["OtherSys", "Other"]


# ---- Test sets: the language pair field ----------------------------------------------------------------
def test_testset_language_pair_placeholder_and_error(app_env):  # noqa: F811
    at = run_app("testsets.py", user=ORGANISER)
    assert at.text_input(key="ts_lp").placeholder == "e.g. cs-en"
    at.text_input(key="ts_campaign").set_value("Shared")
    at.text_input(key="ts_lp").set_value("csen")
    at.file_uploader(key="ts_source").set_value(("test.src", b"a\nb\n", "text/plain"))
    at.button(key="FormSubmitter:new_testset-Validate and store the test set").click().run()
    errors = [unmd(e.value) for e in at.error]
    assert any("'csen'" in e and "two language codes joined by a hyphen" in e and "such as cs-en" in e
               for e in errors), errors
    from leaderboard.storage.outputs import OutputStore
    assert OutputStore(app_env["store"]).testsets().empty


# ---- Automatic scores: p-values with a single entry ----------------------------------------------------
def test_pvalues_tab_says_why_it_is_empty_with_one_entry(released):  # noqa: F811
    from leaderboard.outputs.service import add_team, submit
    store, files = released["store"], released["files"]
    add_team(store, "Solo", verified=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "solo.txt"
        path.write_bytes(files["good"])
        submit(store, path, campaign="Shared", lp="en-de", team="Solo")
    at = run_app("automatic.py", params={"tab": "Pairwise p-values"})
    infos = [unmd(i.value) for i in at.info]
    assert any("No pairwise p-values" in i and "one scored entry (Solo/Solo" in i for i in infos), infos
    assert not at.dataframe


# ---- charts -------------------------------------------------------------------------------------------
def test_gain_bars_keep_axis_titles_clear_of_the_labels():
    from leaderboard.webapp import charts
    frame = pd.DataFrame({"lp": ["cs-en", "de-en"], "assessment": ["adequacy", "adequacy"],
                          "from": ["WMT21 cs-en (demo)"] * 2, "to": ["WMT22 cs-en (demo)"] * 2,
                          "gain": [3.0, -0.5]})
    fig = charts.gain_bars(frame)
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.automargin is True and axis.title.standoff and axis.title.standoff >= 10
    assert fig.layout.margin.b >= 50  # the x title below the tick labels fits inside the figure
    lo, hi = fig.layout.xaxis.range
    assert lo < -0.5 and hi > 3.0  # the bars and their labels outside them are inside the axis
    assert fig.data[0].cliponaxis is False


@pytest.mark.parametrize("value, scale", [("z", 1.0), ("raw", 10.0)])
def test_distribution_axis_spans_the_data(value, scale):
    from leaderboard.webapp import charts
    rng = np.random.default_rng(3)
    centre = 0.0 if value == "z" else 60.0
    seg = pd.DataFrame({"system": np.repeat(["a", "b"], 50), "segment": np.tile(np.arange(50).astype(str), 2),
                        value: centre + scale * rng.uniform(-0.8, 1.3, 100)})
    fig = charts.distribution_figure(seg, "a", value)
    lo, hi = fig.layout.xaxis.range
    data_lo, data_hi = seg[value].min(), seg[value].max()
    width = data_hi - data_lo
    assert data_lo - 0.1 * width <= lo <= data_lo and data_hi <= hi <= data_hi + 0.1 * width
    assert fig.data[0].xbins.start == fig.data[1].xbins.start and fig.data[0].xbins.size == fig.data[1].xbins.size


def test_distribution_on_the_system_page_uses_the_pair_s_scores(app_env):  # noqa: F811
    at = run_app("system.py", params={"campaign": "Y2021", "lp": "cs-en", "system": "sysB.2", "tab": "Distribution"})
    (chart,) = at.get("plotly_chart")
    lo, hi = json.loads(chart.proto.spec)["layout"]["xaxis"]["range"]
    frame = app_env["data"][("Y2021", "cs-en")][0]
    seg = frame.groupby(["system", "segment"])["z"].mean()
    assert lo == pytest.approx(seg.min() - 0.03 * (seg.max() - seg.min()), abs=1e-6)
    assert hi == pytest.approx(seg.max() + 0.03 * (seg.max() - seg.min()), abs=1e-6)


# ---- QC counts of the chosen language pair --------------------------------------------------------------
def test_qc_page_counts_the_workers_of_the_chosen_pair(tmp_path, monkeypatch):
    from leaderboard.human.qc import filter_judgments, simulate_judgments
    from leaderboard.storage.store import frame_hash
    store = fresh_store(tmp_path, monkeypatch)
    parts = []
    for lp, n, share, seed, prefix in (("de-en", 6, 0.34, 1, "D"), ("cs-en", 9, 0.34, 2, "C")):
        part = simulate_judgments(n, random_share=share, n_systems=3, n_segments=40, seed=seed, lp=lp)
        part["worker"] = prefix + part["worker"].astype(str)
        part["hit"] = prefix + part["hit"].astype(str)
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    frame["campaign"] = "TwoPairs"
    store.load_judgments(frame, file_name="two.csv", input_format="canonical")
    _, report = filter_judgments(frame, "paired-t", 0.05)
    passed = set(report.loc[report["passed"], "worker"])
    deen = frame[frame["lp"] == "de-en"]
    workers = set(deen["worker"])
    expected_workers = f"{len(workers & passed):,} of {len(workers):,}"
    expected_judgments = f"{int(deen['worker'].isin(passed).sum()):,} of {len(deen):,}"
    assert len(workers) == 6 and len(report) == 15 and 0 < len(workers & passed) < 6
    # published before specs were stored with snapshots: the page reads the QC from the full signature
    import dataclasses
    from leaderboard.human.spec import GIVEN_Z
    spec = dataclasses.replace(GIVEN_Z, protocol="wmt-da", qc="paired-t", qc_alpha=0.05, standardise="worker")
    for lp in ("de-en", "cs-en"):
        scoring = frame[(frame.item_type == "SYSTEM") & (frame.lp == lp)].copy()
        scoring["z"] = scoring.groupby("worker")["raw"].transform(lambda r: (r - r.mean()) / r.std(ddof=1))
        signature = spec.signature(systems=3, segments=40, judgments=len(scoring))
        store.publish("TwoPairs", lp, "adequacy", hand_ranking(scoring, lp, signature),
                      data_hash=frame_hash(frame), publisher="tester")
    at = run_app("qc.py", params={"campaign": "TwoPairs", "lp": "de-en"})
    at.toggle(key="qc_retest").set_value(True).run()
    figures = [(m.label, m.value) for m in page_figures(at)]
    # the published QC, then the re-test (same test, same threshold): both count de-en only
    assert [v for k, v in figures if k == "Workers kept"] == [expected_workers, expected_workers], figures
    assert [v for k, v in figures if k == "Judgments kept"] == [expected_judgments, expected_judgments]
    shown = at.dataframe[0].value
    assert set(shown["Worker"]) == workers and int((shown["Passed"] == "yes").sum()) == len(workers & passed)


# ---- mtlb published in a terminal -----------------------------------------------------------------------
def test_published_listing_fits_the_terminal_and_json_is_whole(tmp_path):
    from leaderboard.storage import Store
    url = f"sqlite:///{tmp_path / 'p.db'}"
    store = Store(url)
    frame = make_judgments("A campaign with a long name", "cs-en", seed=1, segments=6)
    store.load_judgments(frame, file_name="a.csv", input_format="canonical")
    signature = "da|" + "|".join(f"option{i}:value-{i}" for i in range(12))
    ranking = hand_ranking(frame, "cs-en", signature)
    store.publish("A campaign with a long name", "cs-en", "adequacy", ranking, data_hash="f" * 64,
                  publisher="tester", note="first version, published with a rather long note about it")
    cmd = [sys.executable, "-m", "leaderboard.cli", "published", "--database-url", url]
    for columns in (100, 60):
        env = {**os.environ, "COLUMNS": str(columns)}
        text = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=True).stdout
        lines = text.rstrip("\n").split("\n")
        assert len(lines) == 2 and all(len(line) <= columns for line in lines), lines
        assert lines[1].startswith("A cam") and "…" in lines[1]
        if columns == 100:  # room for every header: only the long cells are cut
            assert lines[0].split() == ["campaign", "lp", "assessment", "version", "published_at", "published_by",
                                        "signature", "note"]
            assert signature[:12] in lines[1] and "first ve" in lines[1]
    # --json keeps every field whole
    env = {**os.environ, "COLUMNS": "60"}
    out = subprocess.run(cmd + ["--json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
                         check=True).stdout
    (row,) = json.loads(out)
    assert row["signature"] == signature and row["data_hash"] == "f" * 64
    assert set(row) == {"campaign", "lp", "assessment", "version", "signature", "data_hash", "published_at",
                        "published_by", "note"}


@pytest.mark.browser
@pytest.mark.parametrize("rows", [1, 3])
def test_gain_bars_titles_do_not_overlap_when_drawn(tmp_path, rows):
    """The figure drawn by plotly.js in Chromium: no axis title overlaps tick labels, the chart title or the
    figure's edge."""
    from playwright.sync_api import sync_playwright

    from leaderboard.webapp import charts
    from test_browser_app import ARGS, CHROMIUM
    lps = ["cs-en", "de-en", "ja-en"][:rows]
    frame = pd.DataFrame({"lp": lps, "assessment": ["adequacy"] * rows, "from": ["WMT21 cs-en (demo)"] * rows,
                          "to": ["WMT22 cs-en (demo)"] * rows, "gain": [3.0, -0.51, 12.5][:rows]})
    fig = charts.gain_bars(frame)
    fig.update_layout(width=700)  # about the width of the page's main column
    path = tmp_path / "bars.html"
    path.write_text(fig.to_html(include_plotlyjs=True, full_html=True), encoding="utf-8")

    def overlap(a, b) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 800, "height": 700})
        page.goto(path.as_uri())
        page.wait_for_selector(".ytitle")
        boxes = {sel: page.eval_on_selector_all(sel, "els => els.map(e => {const r = e.getBoundingClientRect(); "
                                                     "return [r.left, r.top, r.right, r.bottom];})")
                 for sel in (".ytitle", ".xtitle", ".ytick text", ".xtick text", ".gtitle", ".main-svg")}
        browser.close()
    (ytitle,), (xtitle,), (gtitle,), svg = boxes[".ytitle"], boxes[".xtitle"], boxes[".gtitle"], boxes[".main-svg"][0]
    ticks = boxes[".ytick text"] + boxes[".xtick text"]
    assert len(boxes[".ytick text"]) == rows
    for title in (ytitle, xtitle):
        assert not any(overlap(title, t) for t in ticks), (title, ticks)
        assert not overlap(title, gtitle), (title, gtitle)
        assert svg[0] <= title[0] and title[2] <= svg[2] and svg[1] <= title[1] and title[3] <= svg[3], (title, svg)
