"""AppTest tests of the Metrics page: baselines from stored texts, correlations with CIs, Williams test,
clusters, segment-level results, privacy of submissions. Values are checked against sacrebleu / scipy
and hand computations, not against the app's own helpers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from htmltables import page_figures
from test_app_pages import DEVELOPER, ORGANISER, hand_ranking, run_app, shown_table

N_SEG = 24
SYSTEMS = {f"sys{c}.{i}": i for i, c in enumerate("ABCDEF")}  # judged name -> number of damaged words
VOCAB = ("the cat sat on a mat while dogs ran across green fields under bright morning light and "
         "birds sang loudly near old stone walls").split()


def texts_for(seed: int = 3) -> tuple[list[str], dict[str, list[str]]]:
    """A reference and one output per system; system k replaces k of 10 words (deterministic)."""
    rng = np.random.default_rng(seed)
    ref = [" ".join(rng.choice(VOCAB, 10)) for _ in range(N_SEG)]
    outs = {}
    for name, k in SYSTEMS.items():
        lines = []
        for line in ref:
            words = line.split()
            for pos in rng.choice(10, size=min(k + rng.integers(0, 2), 10), replace=False):
                words[pos] = "xyz" + str(rng.integers(0, 99))
            lines.append(" ".join(words))
        outs[name.split(".")[0]] = lines
    return ref, outs


def judgments(campaign: str, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(4):
        pos = 0
        for seg in range(1, N_SEG + 1):
            for s, k in SYSTEMS.items():
                pos += 1
                rows.append({"campaign": campaign, "lp": "cs-en", "assessment": "adequacy", "worker": f"W{w}",
                             "hit": f"H{w}", "position": pos, "segment": str(seg), "system": s,
                             "item_type": "SYSTEM", "raw": float(np.clip(85 - 9 * k + rng.normal(0, 15), 0, 100)),
                             "seconds": 10.0, "doc": "d1"})
    frame = pd.DataFrame(rows)
    frame["z"] = frame.groupby("worker")["raw"].transform(lambda r: (r - r.mean()) / r.std(ddof=1))
    return frame


@pytest.fixture()
def metrics_env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.accounts.auth import create_user
    from leaderboard.storage import Store, default_url
    from leaderboard.storage.store import frame_hash
    store = Store(default_url())
    ref, outs = texts_for()
    out = {"store": store, "ref": ref, "outs": outs}
    for campaign, lines in (("Lines", True), ("NotLines", False)):
        frame = judgments(campaign)
        store.load_judgments(frame, file_name=f"{campaign}.csv", input_format="canonical")
        files = [("cs-en", "reference", "A", ref, "t.cs-en.ref.A.en")]
        files += [("cs-en", "hypothesis", name, lines_, f"t.cs-en.hyp.{name}.en") for name, lines_ in outs.items()]
        store.load_texts(campaign, files)
        store.set_segments_are_lines(campaign, lines)
        ranking = hand_ranking(frame, "cs-en", f"sig-{campaign}")
        store.publish(campaign, "cs-en", "adequacy", ranking, data_hash=frame_hash(frame), publisher="t")
        out[campaign] = (frame, ranking)
    create_user(store, "olga", "organiser-pass", "organiser")
    create_user(store, "mdev", "developer-pass", "metric-developer")
    return out


def split_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """A shown table with each one-column interval ``<key>_ci`` ("lo – hi") back as two numbers
    ``<key>_ci_lo`` / ``<key>_ci_hi`` (NaN where the page shows "–")."""
    out = frame.copy()
    for col in [c for c in frame.columns if str(c).endswith("_ci")]:
        parts = frame[col].astype(str).str.split(" – ", expand=True, regex=False)
        both = parts.shape[1] == 2
        out[f"{col}_lo"] = pd.to_numeric(parts[0], errors="coerce") if both else np.nan
        out[f"{col}_hi"] = pd.to_numeric(parts[1], errors="coerce") if both else np.nan
    return out


def corr_table(at) -> pd.DataFrame:
    from leaderboard.webapp.pages.metrics import CORRELATION_COLUMNS
    return split_intervals(shown_table(at, CORRELATION_COLUMNS, "pearson_ci")).set_index("metric")


def my_metric(env, noise: float = 0.0, segments: bool = False) -> tuple[str, dict, pd.DataFrame]:
    """A metric: per-segment score = fraction of reference words kept (+ noise); system = mean."""
    rng = np.random.default_rng(7)
    rows = []
    for judged in SYSTEMS:
        out = env["outs"][judged.split(".")[0]]
        for i, (hyp, ref) in enumerate(zip(out, env["ref"])):
            kept = np.mean([a == b for a, b in zip(hyp.split(), ref.split())])
            rows.append({"system": judged, "segment": str(i + 1), "score": kept + noise * rng.normal()})
    seg = pd.DataFrame(rows)
    sys_scores = seg.groupby("system")["score"].mean().to_dict()
    if segments:
        body = "metric,lp,system,segment,score\n" + "".join(
            f"Kept,cs-en,{r.system},{r.segment},{r.score!r}\n" for r in seg.itertuples())
    else:
        body = "metric,lp,system,score\n" + "".join(f"Kept,cs-en,{s},{v!r}\n" for s, v in sys_scores.items())
    return body, sys_scores, seg


def open_tab(at, label: str, key: str = "tab"):
    """Switch the page's tabs and rerun: their choice is a widget (session state) bound to the address."""
    at.session_state[key] = label
    at.query_params[key] = label
    return at.run()


def human_ave_z(ranking: dict) -> dict:
    return {s["system"]: s["ave_z"] for s in ranking["systems"]}


def test_baselines_and_correlations_for_participants(metrics_env):
    import sacrebleu
    at = run_app("metrics.py", params={"campaign": "Lines", "lp": "cs-en"})
    table = corr_table(at)
    assert set(table.index) == {"BLEU", "chrF"}
    human = human_ave_z(metrics_env["Lines"][1])
    names = list(human)
    bleu = {s: sacrebleu.corpus_bleu(metrics_env["outs"][s.split(".")[0]], [metrics_env["ref"]]).score for s in names}
    chrf = {s: sacrebleu.corpus_chrf(metrics_env["outs"][s.split(".")[0]], [metrics_env["ref"]]).score for s in names}
    scores = shown_table(at, {"system": ("System", None), "human_ave_z": ("Human Ave z", None)}, "human_ave_z")
    scores = scores.set_index("system")
    for s in names:
        assert scores.loc[s, "BLEU"] == pytest.approx(bleu[s], abs=5e-3)  # shown: 2 decimals
        assert scores.loc[s, "chrF"] == pytest.approx(chrf[s], abs=5e-3)
    h = np.array([human[s] for s in names])
    for metric, values in (("BLEU", bleu), ("chrF", chrf)):
        m = np.array([values[s] for s in names])
        assert table.loc[metric, "pearson"] == pytest.approx(stats.pearsonr(m, h).statistic, abs=5e-4)
        assert table.loc[metric, "spearman"] == pytest.approx(stats.spearmanr(m, h).statistic, abs=5e-4)
        assert table.loc[metric, "kendall"] == pytest.approx(stats.kendalltau(m, h).statistic, abs=5e-4)
        assert table.loc[metric, "pearson_ci_lo"] <= table.loc[metric, "pearson"] <= table.loc[metric, "pearson_ci_hi"]
    assert not at.get("plotly_chart")  # tables first
    assert len(open_tab(at, "Charts", key="view").get("plotly_chart")) == 3  # scatter, clusters, Williams
    # participants can neither upload nor download the package
    open_tab(at, "Upload scores")
    assert not at.file_uploader
    assert any("Log in to upload metric scores" in w.value for w in at.warning)
    open_tab(at, "Evaluation package")
    labels = {b.label for b in at.get("download_button")}
    assert "Download the evaluation package (zip)" not in labels
    assert any("Log in to download the evaluation package" in w.value for w in at.warning)


def williams_p(h: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Williams test written out from Graham & Baldwin (2014), eq. 1 (one-sided, a better than b)."""
    n = len(h)
    r12, r13, r23 = stats.pearsonr(h, a).statistic, stats.pearsonr(h, b).statistic, stats.pearsonr(a, b).statistic
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) / 2) ** 2
                                                             * (1 - r23) ** 3)
    return float(stats.t.sf(t, n - 3))


def test_developer_upload_private_williams_and_publish(metrics_env):
    import sacrebleu
    body, sys_scores, _ = my_metric(metrics_env, noise=0.0)
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Lines", "lp": "cs-en", "tab": "Evaluation package"})
    assert "Download the evaluation package (zip)" in {b.label for b in at.get("download_button")}
    open_tab(at, "Upload scores")
    at.file_uploader(key="metric_file").set_value(("kept.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    assert any("private" in s.value for s in at.success), [e.value for e in at.error]
    open_tab(at, "Results")
    label = at.selectbox(key="metric_pick").value
    assert label.startswith("Kept #")
    table = corr_table(at)
    human = human_ave_z(metrics_env["Lines"][1])
    names = list(human)
    h = np.array([human[s] for s in names])
    mine = np.array([sys_scores[s] for s in names])
    assert table.loc[label, "pearson"] == pytest.approx(stats.pearsonr(mine, h).statistic, abs=5e-4)
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics["Pearson r"] == f"{stats.pearsonr(mine, h).statistic:.3f}"
    # the Williams test against the BLEU baseline, both directions
    bleu = np.array([sacrebleu.corpus_bleu(metrics_env["outs"][s.split(".")[0]], [metrics_env["ref"]]).score
                     for s in names])
    from leaderboard.webapp.pages.metrics import WILLIAMS_COLUMNS
    against = shown_table(at, WILLIAMS_COLUMNS, "compared_with").set_index("compared_with")
    assert against.loc["BLEU", "p_metric_better"] == pytest.approx(williams_p(h, mine, bleu), rel=5e-3)  # 3 significant digits
    assert against.loc["BLEU", "p_other_better"] == pytest.approx(williams_p(h, bleu, mine), rel=5e-3)
    assert any("has system-level scores only" in c.value for c in at.caption)

    # private: a participant does not see it
    anon = run_app("metrics.py", params={"campaign": "Lines", "lp": "cs-en"})
    assert label not in corr_table(anon).index
    # another metric developer may not publish it (store-level refusal shown as an error)
    from leaderboard.accounts.auth import create_user
    create_user(metrics_env["store"], "other", "other-password", "metric-developer")
    sid = int(label.split("#")[1])
    with pytest.raises(PermissionError):
        metrics_env["store"].set_submission_public(sid, True, "other", "metric-developer")
    # the owner publishes it, after a confirmation (a first click or a cancel publishes nothing)
    public = lambda: bool(metrics_env["store"].metric_submissions("Lines", include_private=True)["public"].iloc[0])  # noqa: E731
    at.button(key="my_sub_toggle").click().run()
    assert not public() and any("Every visitor of the Metrics page will see" in w.value for w in at.warning)
    at.button(key="my_sub_cancel").click().run()
    assert not public() and not any(b.key == "my_sub_confirm" for b in at.button)
    at.button(key="my_sub_toggle").click().run()
    at.button(key="my_sub_confirm").click().run()
    assert public()
    anon = run_app("metrics.py", params={"campaign": "Lines", "lp": "cs-en"})
    assert label in corr_table(anon).index


def darr_by_hand(human_raw: dict, metric: dict) -> float:
    conc = disc = 0
    segments = {seg for _, seg in human_raw}
    for seg in segments:
        cells = [s for (s, g) in human_raw if g == seg]
        for i, a in enumerate(cells):
            for b in cells[i + 1:]:
                d = human_raw[(a, seg)] - human_raw[(b, seg)]
                if abs(d) < 25:
                    continue
                better, worse = (a, b) if d > 0 else (b, a)
                if metric[(better, seg)] > metric[(worse, seg)]:
                    conc += 1
                else:
                    disc += 1
    return (conc - disc) / (conc + disc)


def test_segment_level_results_when_segments_are_lines(metrics_env):
    body, _, seg = my_metric(metrics_env, noise=0.05, segments=True)
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Lines", "lp": "cs-en", "tab": "Upload scores"})
    at.file_uploader(key="metric_file").set_value(("kept-seg.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    assert any("private" in s.value for s in at.success), [e.value for e in at.error]
    open_tab(at, "Results")
    assert not at.exception
    from leaderboard.webapp.pages.metrics import SEGMENT_COLUMNS
    segtab = split_intervals(shown_table(at, SEGMENT_COLUMNS, "darr_tau")).set_index("metric")
    label = at.selectbox(key="metric_pick").value
    frame = metrics_env["Lines"][0]
    cells = frame.groupby(["system", "segment"]).agg(raw=("raw", "mean"), z=("z", "mean"))
    metric = {(r.system, r.segment): r.score for r in seg.itertuples()}
    expected = darr_by_hand(cells["raw"].to_dict(), metric)
    assert segtab.loc[label, "darr_tau"] == pytest.approx(expected, abs=5e-4)
    lo, hi = segtab.loc[label, "darr_tau_ci_lo"], segtab.loc[label, "darr_tau_ci_hi"]
    assert lo - 5e-4 <= expected <= hi + 5e-4  # shown: 3 decimals
    joined = cells.join(seg.set_index(["system", "segment"])["score"])
    assert segtab.loc[label, "pearson"] == pytest.approx(stats.pearsonr(joined["z"], joined["score"]).statistic,
                                                          abs=5e-4)
    per_item = [stats.kendalltau(g["z"], g["score"]).statistic for _, g in joined.groupby(level="segment")]
    assert segtab.loc[label, "kendall_item"] == pytest.approx(np.nanmean(per_item), abs=5e-4)
    assert {"chrF", "BLEU (sentence)"} <= set(segtab.index)


def test_segment_level_refused_when_segments_are_not_lines(metrics_env):
    body, _, _ = my_metric(metrics_env, noise=0.05, segments=True)
    at = run_app("metrics.py", user=ORGANISER, params={"campaign": "NotLines", "lp": "cs-en", "tab": "Upload scores"})
    at.file_uploader(key="metric_file").set_value(("kept-seg.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    open_tab(at, "Results")
    assert any("do not index the stored test-set lines" in w.value for w in at.warning)
    from leaderboard.webapp.pages.metrics import SEGMENT_COLUMNS
    with pytest.raises(AssertionError, match="no table"):
        shown_table(at, SEGMENT_COLUMNS, "darr_tau")
    # the system-level results are still there (segment scores averaged per system)
    assert at.selectbox(key="metric_pick").value in corr_table(at).index


def test_system_page_pairs_texts_only_when_segments_are_lines(metrics_env):
    at = run_app("system.py", params={"campaign": "Lines", "lp": "cs-en", "system": "sysC.2"})
    seg = at.dataframe[0].value
    assert {"Source", "Reference", "Output"} - {"Source"} <= set(seg.columns)
    row = seg[seg["Segment"].astype(str) == "5"].iloc[0]
    assert row["Output"] == metrics_env["outs"]["sysC"][4]
    assert row["Reference"] == metrics_env["ref"][4]
    at = run_app("system.py", params={"campaign": "NotLines", "lp": "cs-en", "system": "sysC.2"})
    seg = at.dataframe[0].value
    assert not {"Reference", "Output"} & set(seg.columns)
    assert any("do not index the stored test-set texts" in i.value for i in at.info)
