"""Metrics page on WMT22 de-en when the judged human translation (HUMAN-B) has no stored output.

Only reference A and the nine MT outputs are stored, so BLEU and chrF cannot score HUMAN-B. The page
must still compute the baselines for the nine systems that have outputs, leave the human translation
out of the correlations and say so (it used to show "No metric scores"). Values are checked against
sacrebleu and scipy directly.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from test_app_pages import fresh_store, run_app, shown_table

pytestmark = pytest.mark.slow

LP = "de-en"
CAMPAIGN = "wmt22-deen"


@pytest.fixture()
def deen_env(shared: Path, tmp_path, monkeypatch):
    from leaderboard.ingest import read_judgments
    from leaderboard.publish.snapshots import publish_rankings
    store = fresh_store(tmp_path, monkeypatch)
    da, general = shared / "wmt22-toen-da", shared / "wmt22-general"
    frame = read_judgments(da / "ad-deen-good-stnd.csv", "wmt-stnd", worker_stats=da / "ad-deen-trk-mean-sd.txt",
                           campaign=CAMPAIGN)
    store.load_judgments(frame, file_name="ad-deen-good-stnd.csv", input_format="wmt-stnd")
    ref = (general / "references" / f"generaltest2022.{LP}.ref.A.en").read_text(encoding="utf-8").split("\n")[:-1]
    outputs = {}
    for path in sorted((general / "system-outputs").glob(f"generaltest2022.{LP}.hyp.*.en")):
        outputs[path.name.split(".hyp.")[1][:-3]] = path.read_text(encoding="utf-8").split("\n")[:-1]
    files = [(LP, "reference", "A", ref, f"generaltest2022.{LP}.ref.A.en")]
    files += [(LP, "hypothesis", name, lines, f"generaltest2022.{LP}.hyp.{name}.en") for name, lines in outputs.items()]
    store.load_texts(CAMPAIGN, files)
    ranking = publish_rankings(store, CAMPAIGN, "tester", qc="release")
    assert [r["lp"] for r in ranking] == [LP]
    return {"store": store, "ref": ref, "outputs": outputs, "ranking": store.snapshot(CAMPAIGN, LP, "adequacy")}


def test_baselines_for_the_systems_with_outputs_human_left_out(deen_env):
    from sacrebleu.metrics import BLEU, CHRF
    at = run_app("metrics.py", params={"campaign": CAMPAIGN, "lp": LP})
    assert not any("No metric scores" in i.value for i in at.info)
    from leaderboard.webapp.pages.metrics import CORRELATION_COLUMNS
    table = shown_table(at, CORRELATION_COLUMNS, "pearson_ci").set_index("metric")
    assert set(table.index) == {"BLEU", "chrF"}
    ranked = {s["system"]: s["ave_z"] for s in deen_env["ranking"]["ranking"]["systems"]}
    assert "HUMAN-B" in ranked and len(ranked) == 10
    mt = [s for s in ranked if s != "HUMAN-B"]
    h = np.array([ranked[s] for s in mt])
    outputs = {s: deen_env["outputs"][s.rsplit(".", 1)[0]] for s in mt}
    for metric, make in (("BLEU", BLEU), ("chrF", CHRF)):
        plain = make(references=[deen_env["ref"]])  # sacrebleu's defaults, its reference cache made once
        m = np.array([plain.corpus_score(outputs[s], None).score for s in mt])
        assert table.loc[metric, "n_systems"] == 9
        # the page shows three decimals
        assert table.loc[metric, "pearson"] == pytest.approx(stats.pearsonr(m, h).statistic, abs=5e-4)
        assert table.loc[metric, "kendall"] == pytest.approx(stats.kendalltau(m, h).statistic, abs=5e-4)
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption))  # markdown escapes removed
    assert "HUMAN-B (a human translation) is left out of the correlations" in captions
    assert "computed for the 9 of 10 ranked systems with a stored output (none for HUMAN-B)" in captions
    # readable headers (column labels, not raw keys) and three decimals in the correlation table
    markup = next(h.value for h in at.get("html") if "Pearson r 95% CI" in h.value)
    assert "pearson_ci" not in markup
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", markup)
    assert cells and all(re.fullmatch(r"-?\d+\.\d{3}", c) for c in cells if re.fullmatch(r"-?[\d.]+", c) and "." in c)
    # each interval is one column (issue 42.9): 10 columns, not 13
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", markup.split("</thead>")[0])
    assert headers == ["Metric", "Cluster", "Pearson r", "Pearson r 95% CI", "Spearman ρ", "Spearman ρ 95% CI",
                       "Kendall τ", "Kendall τ 95% CI", "CI resamples", "Systems"]
    intervals = [c for c in cells if " – " in c]
    assert len(intervals) == 6 and all(re.fullmatch(r"-?\d+\.\d{3} – -?\d+\.\d{3}", c) for c in intervals)
