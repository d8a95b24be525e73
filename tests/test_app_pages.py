"""AppTest tests of every page of the web app, for each role (participant, metric developer, organiser)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from streamlit.testing.v1 import AppTest

from htmltables import page_figures, page_tables

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGES = "leaderboard/webapp/pages/"
SYSTEMS = ["sysA.1", "sysB.2", "sysC.3"]


def make_judgments(campaign: str, lp: str, seed: int = 0, segments: int = 24) -> pd.DataFrame:
    """Canonical judgments: 3 systems of clearly different quality, 4 workers, one HIT each."""
    rng = np.random.default_rng(seed)
    rows = []
    quality = {"sysA.1": 80.0, "sysB.2": 60.0, "sysC.3": 40.0}
    for w in range(4):
        pos = 0
        for seg in range(1, segments + 1):
            for s in SYSTEMS:
                pos += 1
                rows.append({"campaign": campaign, "lp": lp, "assessment": "adequacy", "worker": f"W{w}",
                             "hit": f"H{w}", "position": pos, "segment": str(seg), "system": s,
                             "item_type": "SYSTEM", "raw": float(np.clip(quality[s] + rng.normal(0, 8), 0, 100)),
                             "seconds": 10.0, "doc": "d1"})
    frame = pd.DataFrame(rows)
    frame["z"] = frame.groupby("worker")["raw"].transform(lambda r: (r - r.mean()) / r.std(ddof=1))
    return frame


def hand_ranking(frame: pd.DataFrame, lp: str, signature: str) -> dict:
    """A ranking dict in the documented shape, computed here independently of the app."""
    from scipy.stats import mannwhitneyu
    seg = frame.groupby(["system", "segment"]).agg(raw=("raw", "mean"), z=("z", "mean")).reset_index()
    sysd = seg.groupby("system").agg(ave=("raw", "mean"), ave_z=("z", "mean"), n=("z", "size"))
    sysd["n_all"] = frame.groupby("system").size()
    sysd = sysd.sort_values("ave_z", ascending=False)
    names = list(sysd.index)
    pv = {a: {b: float(mannwhitneyu(seg[seg.system == a].z, seg[seg.system == b].z,
                                    alternative="greater").pvalue) for b in names if b != a} for a in names}
    systems = [{"system": s, "ave": float(r.ave), "ave_z": float(r.ave_z), "n": int(r.n), "n_all": int(r.n_all),
                "rank_lo": i + 1, "rank_hi": i + 1, "cluster": i + 1, "wins": len(names) - i - 1}
               for i, (s, r) in enumerate(sysd.iterrows())]
    return {"lp": lp, "assessment": "adequacy", "signature": signature, "systems": systems, "pvalues": pv}


def fresh_store(tmp_path, monkeypatch, demo: bool = False):
    """An empty SQLite store in ``tmp_path`` for the app (MTLB_DATA_DIR; no demo unless asked; login
    throttle reset)."""
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    if demo:
        monkeypatch.delenv("MTLB_NO_DEMO", raising=False)
    else:
        monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.storage import Store, default_url
    return Store(default_url())  # get_engine(None) is cached across environments


@pytest.fixture()
def app_env(tmp_path, monkeypatch):
    """A temporary SQLite store with two campaigns, published rankings (cs-en v1 and v2) and two users."""
    from leaderboard.accounts.auth import create_user
    from leaderboard.storage.store import frame_hash
    store = fresh_store(tmp_path, monkeypatch)
    data = {}
    for campaign, seed in (("Y2021", 1), ("Y2022", 2)):
        for lp in ("cs-en", "de-en"):
            frame = make_judgments(campaign, lp, seed=seed + (lp == "de-en") * 10)
            store.load_judgments(frame, file_name=f"{campaign}-{lp}.csv", input_format="canonical")
            ranking = hand_ranking(frame, lp, f"sig-{campaign}-{lp}")
            store.publish(campaign, lp, "adequacy", ranking, data_hash=frame_hash(frame), publisher="tester")
            data[(campaign, lp)] = (frame, ranking)
    # a correction of Y2022 cs-en: version 2 (different signature, reversed note)
    frame, ranking = data[("Y2022", "cs-en")]
    store.publish("Y2022", "cs-en", "adequacy", {**ranking, "signature": "sig-corrected"},
                  data_hash=frame_hash(frame), publisher="tester", note="correction")
    create_user(store, "olga", "organiser-pass", "organiser")
    create_user(store, "mdev", "developer-pass", "metric-developer")
    return {"store": store, "data": data}


def run_app(page: str | None = None, user: dict | None = None, params: dict | None = None,
            timeout: float = 60) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    if user:
        at.session_state["user"] = user
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(PAGES + page).run()
        if params:  # a page switch clears the address's parameters; a link to the page carries them
            for k, v in params.items():
                at.query_params[k] = v
            at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


ORGANISER = {"name": "olga", "role": "organiser"}
DEVELOPER = {"name": "mdev", "role": "metric-developer"}


def unmd(text: str) -> str:
    """What a Markdown text element shows: the app escapes user text (backslashes, character
    references, invisible word joiners), the browser shows it literally."""
    import html
    import re
    return html.unescape(re.sub(r"\\(.)", r"\1", str(text)).replace("\u2060", ""))


def shown_table(at: AppTest, columns: dict[str, tuple[str, str | None]], key: str) -> pd.DataFrame:
    """The first ``common.static_table`` of the page holding column ``key``, under its own column
    names again (``columns``: the page's column → (header, format) map); cells as shown."""
    back = {header: name for name, (header, _) in columns.items()}
    for frame in page_tables(at):
        names = [back.get(c, c) for c in frame.columns]
        if key in names:
            frame = frame.copy()
            frame.columns = names
            return frame
    raise AssertionError(f"no table with column {key!r}")


def table_frame(at: AppTest, i: int = 0) -> pd.DataFrame:
    """HTML table i of the page as shown (:mod:`htmltables`)."""
    return page_tables(at)[i]


def test_leaderboard_shows_latest_version_and_values(app_env):
    at = run_app(params={"campaign": "Y2022", "lp": "cs-en"})
    ranking = app_env["data"][("Y2022", "cs-en")][1]
    table = table_frame(at)
    assert list(table["System"]) == [s["system"] for s in ranking["systems"]]
    assert [float(v) for v in table["Ave. z"]] == pytest.approx([s["ave_z"] for s in ranking["systems"]], abs=5e-4)
    assert [float(v) for v in table["Ave."]] == pytest.approx([s["ave"] for s in ranking["systems"]], abs=0.05)
    assert at.sidebar.selectbox(key="view_version").value == 2
    assert any("sig-corrected" in c.value for c in at.caption)
    assert at.query_params["version"] == ["2"] or at.query_params["version"] == "2"
    assert {b.label for b in at.get("download_button")} == {"Download ranking (CSV)", "Download ranking (JSON)",
                                                          "Download ranking (LaTeX)"}
    assert not at.get("plotly_chart")  # the chart waits on its own tab
    at = run_app(params={"campaign": "Y2022", "lp": "cs-en", "tab": "Chart"})
    assert len(at.get("plotly_chart")) == 1 and not page_tables(at)
    labels = {b.label for b in at.get("download_button")}
    assert {f"Download ranking chart ({kind})" for kind in ("PNG", "SVG", "HTML")} <= labels or \
        {"Download ranking chart (HTML)"} <= labels


def test_leaderboard_opens_older_version_from_link(app_env):
    at = run_app(params={"campaign": "Y2022", "lp": "cs-en", "assessment": "adequacy", "version": "1"})
    assert at.sidebar.selectbox(key="view_version").value == 1
    assert any("older version" in c.value and "sig-Y2022-cs-en" in c.value for c in at.caption)


def test_switch_language_pair(app_env):
    at = run_app(params={"campaign": "Y2021"})
    assert at.sidebar.selectbox(key="view_lp").value == "cs-en"
    at.sidebar.selectbox(key="view_lp").set_value("de-en").run()
    ranking = app_env["data"][("Y2021", "de-en")][1]
    assert list(table_frame(at)["System"]) == [s["system"] for s in ranking["systems"]]
    assert [float(v) for v in table_frame(at)["Ave. z"]] == pytest.approx([s["ave_z"] for s in ranking["systems"]],
                                                                          abs=5e-4)


def test_significance_page(app_env):
    at = run_app("heatmap.py", params={"campaign": "Y2021", "lp": "cs-en"})
    assert at.title[0].value == "Pairwise significance"
    ranking = app_env["data"][("Y2021", "cs-en")][1]
    # first the head-to-head table: row i better than column j, stars by p level, "—" on the diagonal
    matrix = table_frame(at).set_index("better ↓ than →")
    names = [s["system"] for s in ranking["systems"]]
    assert list(matrix.index) == [f"{i + 1}. {n}" for i, n in enumerate(names)]
    assert list(matrix.columns) == ["1", "2", "3"]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            p = ranking["pvalues"].get(a, {}).get(b)
            expected = "—" if i == j else "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""
            assert unmd(matrix.iloc[i, j]) == expected, (a, b, p)
    assert not at.get("plotly_chart")
    assert len(run_app("heatmap.py", params={"campaign": "Y2021", "lp": "cs-en", "tab": "Heat map"})
               .get("plotly_chart")) == 1
    from leaderboard.webapp.pages.heatmap import pvalue_table
    table = pvalue_table(ranking)
    assert len(table) == 6
    row = table[(table.better == "sysA.1") & (table.worse == "sysC.3")].iloc[0]
    assert row.p_value == pytest.approx(ranking["pvalues"]["sysA.1"]["sysC.3"])
    assert row.significance == "p < 0.001"  # 24 segments, 40 points apart


def test_system_page(app_env):
    at = run_app("system.py", params={"campaign": "Y2021", "lp": "cs-en", "system": "sysB.2"})
    assert at.selectbox(key="system_pick").value == "sysB.2"
    ranking = app_env["data"][("Y2021", "cs-en")][1]
    row = next(s for s in ranking["systems"] if s["system"] == "sysB.2")
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics["Ave. z"] == f"{row['ave_z']:.3f}"
    assert metrics["Segments (N)"] == "24"
    frame = app_env["data"][("Y2021", "cs-en")][0]
    seg = at.dataframe[0].value
    mine = frame[frame.system == "sysB.2"].groupby("segment")["z"].mean()
    got = seg.set_index(seg["Segment"].astype(str))["z"]
    assert got.sort_index().to_numpy() == pytest.approx(mine.sort_index().to_numpy(), abs=1e-9)
    at = run_app("system.py", params={"campaign": "Y2021", "lp": "cs-en", "system": "sysB.2", "tab": "Head to head"})
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics.get("Common segments") == "24" and len(at.get("plotly_chart")) == 1


def test_quality_control_page(app_env):
    from leaderboard.human.qc import filter_judgments, qc_summary, simulate_judgments
    from leaderboard.storage.store import frame_hash
    frame = simulate_judgments(6, random_share=0.34, n_systems=3, n_segments=40, seed=1, lp="cs-en")
    frame["campaign"] = "QCsim"
    store = app_env["store"]
    store.load_judgments(frame, file_name="sim.csv", input_format="canonical")
    scoring = frame[frame.item_type == "SYSTEM"].copy()
    scoring["z"] = scoring.groupby("worker")["raw"].transform(lambda r: (r - r.mean()) / r.std(ddof=1))
    store.publish("QCsim", "cs-en", "adequacy", hand_ranking(scoring, "cs-en", "sig-sim"),
                  data_hash=frame_hash(frame), publisher="tester")
    at = run_app("qc.py", params={"campaign": "QCsim", "lp": "cs-en"})
    assert at.title[0].value == "Quality control"
    _, report = filter_judgments(frame, "paired-t", 0.05)
    expected = qc_summary(report)
    assert 0 < expected["workers_kept"] < expected["workers_total"]  # the random workers fail
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics["Workers kept"] == f"{expected['workers_kept']:,} of {expected['workers_total']:,}"
    assert metrics["Judgments kept"] == f"{expected['judgments_kept']:,} of {expected['judgments_total']:,}"
    shown = at.dataframe[0].value
    assert int((shown["Passed"] == "yes").sum()) == expected["workers_kept"]


def test_longitudinal_page(app_env):
    from leaderboard.webapp.pages.longitudinal import COMPARISON_COLUMNS, TRACK_COLUMNS
    at = run_app("longitudinal.py")
    assert at.multiselect(key="years").value == ["Y2021", "Y2022"]
    tracks = shown_table(at, TRACK_COLUMNS, "best_system")
    best = tracks[(tracks.lp == "cs-en") & (tracks.year == "Y2022")].iloc[0]
    ranking = app_env["data"][("Y2022", "cs-en")][1]
    assert best.best_system == ranking["systems"][0]["system"]
    assert best.ave_z == pytest.approx(ranking["systems"][0]["ave_z"], abs=5e-4)  # shown: 3 decimals
    # it opens calibrated: a system judged in both years (sysA, sysB, sysC all have 24 segments: the first)
    assert at.text_input(key="calibration").value == "sysA"
    assert not any("share no calibration run" in unmd(w.value) for w in at.warning)
    # no calibration system named: the page says the campaigns share no calibration run, and shows no gain
    at.text_input(key="calibration").set_value("").run()
    assert any("share no calibration run" in unmd(w.value) and "cs-en Y2021→Y2022" in unmd(w.value)
               for w in at.warning)
    # calibrate with sysB (sysB.2 in both years): gain = (best22 - best21) + (curr21 - curr22) on raw Ave
    at.text_input(key="calibration").set_value("sysB").run()
    gains = shown_table(at, COMPARISON_COLUMNS, "gain")
    r21, r22 = app_env["data"][("Y2021", "cs-en")][1], app_env["data"][("Y2022", "cs-en")][1]
    ave = lambda r, s: next(x["ave"] for x in r["systems"] if x["system"] == s)  # noqa: E731
    expected = (r22["systems"][0]["ave"] - r21["systems"][0]["ave"]) + (ave(r21, "sysB.2") - ave(r22, "sysB.2"))
    assert gains[gains.lp == "cs-en"].iloc[0]["gain"] == pytest.approx(expected, abs=5e-3)  # 2 decimals
    assert gains[gains.lp == "cs-en"].iloc[0]["delta"] == pytest.approx(ave(r21, "sysB.2") - ave(r22, "sysB.2"), abs=5e-3)
    assert not any("share no calibration run" in w.value for w in at.warning)
    assert not at.get("plotly_chart")  # tables first; the charts have their own tab
    at = run_app("longitudinal.py", params={"tab": "Charts", "calibration": "sysB"})
    # best per year, the gain scatter (Graham et al. 2014, Fig. 1), the gain bars
    assert len(at.get("plotly_chart")) == 3


def test_login_wrong_and_right_password(app_env):
    at = run_app("login.py")
    at.text_input(key="login_name").set_value("olga")
    at.text_input(key="login_password").set_value("wrong-password")
    at.button[0].click().run()
    assert any("Wrong user name or password" in e.value for e in at.error)
    assert "user" not in at.session_state
    at.text_input(key="login_name").set_value("olga")
    at.text_input(key="login_password").set_value("organiser-pass")
    at.button[0].click().run()
    assert at.session_state["user"] == ORGANISER


def _menu(at: AppTest) -> dict[str, str]:
    """The app's menu as the browser gets it: address -> title of every page st.navigation registered."""
    pages = at._registered_pages  # what the run's st.navigation sent (AppTest has no public accessor)
    return {str(p.get("url_pathname", "")): str(p.get("page_name", "")) for p in pages.values()}


def test_menu_offers_no_log_in_once_logged_in(app_env):
    """Issue 42.9: "Log in" stayed in the menu after logging in; it is "Account" then, and again "Log in"
    after logging out (the login and the logout through the pages, as a visitor does them)."""
    at = run_app("login.py")
    assert _menu(at)["login"] == "Log in"
    at.text_input(key="login_name").set_value("olga")
    at.text_input(key="login_password").set_value("organiser-pass")
    at.button[0].click().run()
    assert at.session_state["user"] == ORGANISER
    menu = _menu(at)
    assert menu["login"] == "Account" and "Log in" not in menu.values()
    at.switch_page(PAGES + "login.py").run()
    assert [t.value for t in at.title] == ["Account"]
    assert any("logged in as olga" in s.value for s in at.success)
    at.sidebar.button(key="logout").click().run()
    assert "user" not in at.session_state
    assert _menu(at)["login"] == "Log in"


def test_login_with_an_upload_token(app_env):
    from leaderboard.accounts.auth import issue_upload_token

    store = app_env["store"]
    token = issue_upload_token(store, "mdev", "ci")
    at = run_app("login.py")
    at.text_input(key="login_token").set_value("mtlb_not-a-real-token")
    at.button[1].click().run()
    assert any("Unknown or revoked upload token" in e.value for e in at.error)
    assert "user" not in at.session_state
    at.text_input(key="login_token").set_value(token)
    at.button[1].click().run()
    assert at.session_state["user"] == DEVELOPER
    # a revoked token no longer works
    assert store.revoke_upload_tokens("mdev") == 1
    at = run_app("login.py")
    at.text_input(key="login_token").set_value(token)
    at.button[1].click().run()
    assert "user" not in at.session_state


def test_login_is_throttled(app_env):
    at = run_app("login.py")
    for _ in range(5):
        at.text_input(key="login_name").set_value("mdev")
        at.text_input(key="login_password").set_value("nope-nope")
        at.button[0].click().run()
    # now even the right password is refused until the lock expires
    at.text_input(key="login_name").set_value("mdev")
    at.text_input(key="login_password").set_value("developer-pass")
    at.button[0].click().run()
    assert any("Too many failed logins" in e.value for e in at.error)
    assert "user" not in at.session_state


@pytest.mark.parametrize("user", [None, DEVELOPER])
def test_organiser_page_refused_for_other_roles(app_env, user):
    at = run_app("organiser.py", user=user)
    assert not at.file_uploader
    assert not [b for b in at.button if b.key and b.key.startswith("pub_")]
    if user is None:
        assert any("Log in" in w.value for w in at.warning)
    else:
        assert any(e.value.startswith("Refused") for e in at.error)


def canonical_csv(frame: pd.DataFrame) -> bytes:
    cols = ["lp", "assessment", "worker", "hit", "position", "segment", "system", "item_type", "raw", "z",
            "seconds", "doc"]
    return frame[cols].to_csv(index=False).encode()


def test_organiser_uploads_judgments(app_env):
    at = run_app("organiser.py", user=ORGANISER)
    assert at.file_uploader
    frame = make_judgments("ignored", "fr-en", seed=5, segments=6)
    at.selectbox(key="up_campaign").set_value("(new campaign…)").run()
    at.text_input(key="up_campaign_new").set_value("Y2023").run()
    at.file_uploader(key="up_judgments").set_value(("fr.csv", canonical_csv(frame), "text/csv")).run()
    at.button(key="up_go").click().run()
    assert not at.exception
    assert any("Stored 72 judgments" in s.value for s in at.success), [e.value for e in at.error]
    stored = app_env["store"].judgments("Y2023")
    assert len(stored) == 72 and set(stored["lp"]) == {"fr-en"}


def test_failing_upload_shows_file_line_and_column(app_env):
    at = run_app("organiser.py", user=ORGANISER)
    frame = make_judgments("ignored", "fr-en", seed=5, segments=3)
    body = canonical_csv(frame).decode().splitlines()
    parts = body[4].split(",")
    parts[8] = "abc"  # the raw score of the 4th data row (line 5 of the file)
    body[4] = ",".join(parts)
    at.selectbox(key="up_campaign").set_value("Y2021").run()
    at.file_uploader(key="up_judgments").set_value(("bad=1.csv", ("\n".join(body) + "\n").encode(), "text/csv")).run()
    at.button(key="up_go").click().run()
    errors = [e.value for e in at.error]
    assert errors and "bad=1\\.csv" in errors[0] and "line **5**" in errors[0] and "raw" in errors[0], errors
    assert len(app_env["store"].judgments("Y2021")) == 2 * 4 * 24 * 3  # nothing written


def test_organiser_previews_and_publishes_new_version(app_env):
    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="pub_campaign").set_value("Y2021").run()
    at.selectbox(key="pub_lp").set_value("cs-en").run()
    # these judgments hold no quality-control items (the default QC test would remove every worker)
    at.selectbox(key="pub_qc").set_value("none").run()
    at.button(key="pub_preview").click().run()
    preview = table_frame(at)
    assert list(preview["System"]) == ["sysA.1", "sysB.2", "sysC.3"]
    at.text_input(key="pub_note").set_value("re-ranked").run()
    at.button(key="pub_go").click().run()
    assert any("version v2" in s.value for s in at.success)
    snap = app_env["store"].snapshot("Y2021", "cs-en", "adequacy")
    assert snap["version"] == 2 and snap["published_by"] == "olga" and snap["note"] == "re-ranked"
    # a participant sees the new version as the latest
    at2 = run_app(params={"campaign": "Y2021", "lp": "cs-en"})
    assert at2.sidebar.selectbox(key="view_version").value == 2


def test_metrics_page_roles_and_private_upload(app_env):
    upload = {"campaign": "Y2021", "lp": "cs-en", "tab": "Upload scores"}
    at = run_app("metrics.py", params=upload)
    assert at.title[0].value == "Metrics"
    assert not at.file_uploader  # participants cannot upload
    assert any("Log in to upload metric scores" in w.value for w in at.warning)
    at = run_app("metrics.py", user=DEVELOPER, params=upload)
    body = "metric,lp,system,score\n" + "".join(f"MyMetric,cs-en,{s},{v}\n" for s, v in
                                                 zip(SYSTEMS, (0.9, 0.5, 0.1)))
    at.file_uploader(key="metric_file").set_value(("my.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    assert any("private" in s.value for s in at.success), [e.value for e in at.error]
    subs = app_env["store"].metric_submissions("Y2021", include_private=True)
    assert list(subs["metric"]) == ["MyMetric"] and not subs["public"].any() and subs["owner"][0] == "mdev"
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Y2021", "lp": "cs-en"})
    assert at.selectbox(key="metric_pick").value.startswith("MyMetric")
    # private: a participant does not see it
    at = run_app("metrics.py", params={"campaign": "Y2021", "lp": "cs-en"})
    assert not at.selectbox(key="metric_pick") if "metric_pick" in [s.key for s in at.selectbox] else True
    assert any("No metric scores" in i.value for i in at.info)


def test_metrics_upload_error_names_line(app_env):
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Y2021", "lp": "cs-en", "tab": "Upload scores"})
    body = "metric,lp,system,score\nM,cs-en,sysA.1,0.5\nM,cs-en,sysZ.9,0.1\nM,cs-en,sysB.2,0.2\nM,cs-en,sysC.3,0.3\n"
    at.file_uploader(key="metric_file").set_value(("m.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    errors = [e.value for e in at.error]
    assert errors and "line **3**" in errors[0] and "system" in errors[0], errors
    assert app_env["store"].metric_submissions("Y2021", include_private=True).empty


def test_first_start_of_an_empty_store_shows_the_demo(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("MTLB_NO_DEMO", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.publish.demo import DEMO_CAMPAIGN
    from leaderboard.storage import Store, default_url
    assert Store(default_url()).snapshots().empty
    # the first start loads and publishes the three demo campaigns with their page artifacts (sacrebleu
    # baselines included): give a loaded machine time
    at = run_app(params={"campaign": DEMO_CAMPAIGN}, timeout=240)
    table = table_frame(at)
    # WMT22 Findings, cs-en into-English DA: Online-W first, 12 systems including the human reference C
    # (the human translation is marked with a dagger)
    assert len(table) == 12 and table["System"].iloc[0] == "Online-W.2" and "HUMAN-C †" in set(table["System"])
    snaps = Store(default_url()).snapshots()
    assert DEMO_CAMPAIGN in set(snaps["campaign"]) and (snaps["version"] == 1).all()


def test_longitudinal_page_without_a_shared_language_pair(app_env):
    from leaderboard.storage.store import frame_hash
    frame = make_judgments("Y2023", "fr-en", seed=9, segments=6)
    store = app_env["store"]
    store.load_judgments(frame, file_name="fr.csv", input_format="canonical")
    store.publish("Y2023", "fr-en", "adequacy", hand_ranking(frame, "fr-en", "sig-fr"),
                  data_hash=frame_hash(frame), publisher="tester")
    at = run_app("longitudinal.py")
    at.multiselect(key="years").set_value(["Y2022", "Y2023"]).run()
    assert any("no language pair and assessment in common" in i.value for i in at.info)
    assert not at.error
