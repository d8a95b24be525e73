"""AppTest of the Metrics page's meta-evaluation: per-pair acc_eq / SPA with clusters and reference points,
per-pair p-values, and the global ranking with its clusters (WMT24-25 procedure).

acc_eq is checked against the literal rule computed here from the stored judgments; the page's p-values
and global ranking against `metrics.metaeval.evaluate` run on the same matrices (the statistics
themselves are checked against mt-metrics-eval's output in test_meta_eval_mtme_parity.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from htmltables import page_tables
from test_app_metrics import metrics_env, N_SEG, SYSTEMS  # noqa: F401  (the fixture)
from test_app_pages import run_app
from test_meta_eval_global import literal_acc_eq

PARAMS = {"campaign": "Lines", "lp": "cs-en", "assessment": "adequacy"}


def submissions(env) -> dict[str, pd.DataFrame]:
    frame = env["Lines"][0]
    cells = frame.groupby(["system", "segment"])["raw"].mean().reset_index()
    rng = np.random.default_rng(4)
    out = {"close": cells.assign(score=cells["raw"] + rng.normal(scale=5, size=len(cells))),
           "noisy": cells.assign(score=cells["raw"] + rng.normal(scale=40, size=len(cells))),
           "sentinel-cand-mqm": cells.assign(score=rng.normal(size=len(cells)))}
    for name, part in out.items():
        env["store"].save_metric_submissions("Lines", part.assign(lp="cs-en", metric=name), level="segment",
                                             public=True)
    return {name: part for name, part in out.items()}


def table_with(at, header: str) -> pd.DataFrame:
    return next(t for t in page_tables(at) if header in t.columns)


def test_metrics_page_shows_meta_evaluation_pvalues_and_global_ranking(metrics_env):  # noqa: F811
    subs = submissions(metrics_env)
    at = run_app("metrics.py", params=PARAMS, timeout=180)
    assert not at.exception
    shown = table_with(at, "acc_eq cluster")
    rows = shown.set_index("Metric")
    frame = metrics_env["Lines"][0]
    human = frame.groupby(["system", "segment"])["raw"].mean().unstack()
    human = human[sorted(human.columns, key=int)]      # segments in test-set order, as SPA's permutations see them
    labels = {n: next(i for i in rows.index if str(i).startswith(n)) for n in subs}
    for name, part in subs.items():
        metric = part.set_index(["system", "segment"])["score"].unstack().reindex(index=human.index,
                                                                                 columns=human.columns)
        value, _ = literal_acc_eq(human.to_numpy(), metric.to_numpy())
        assert rows.loc[labels[name], "acc_eq"] == pytest.approx(value, abs=5e-5)
    assert rows.loc[labels["sentinel-cand-mqm"], "Kind"] == "sentinel"
    assert rows.loc["random metric", "Kind"] == "chance" and rows.loc["constant metric", "Kind"] == "chance"
    # the constant metric is right exactly on the human ties: their share per segment (mean raw scores)
    ties = [np.mean([a == b for i, a in enumerate(col) for b in col[i + 1:]]) for col in human.to_numpy().T]
    assert rows.loc["constant metric", "acc_eq"] == pytest.approx(np.mean(ties), abs=5e-5)
    assert shown["acc_eq cluster"].dropna().min() == 1

    from metrics.metaeval.evaluate import PairInput, evaluate
    matrices = {labels[n]: p.set_index(["system", "segment"])["score"].unstack().reindex(
        index=human.index, columns=human.columns).to_numpy() for n, p in subs.items()}
    want = evaluate([PairInput("cs-en", human.to_numpy(), matrices)])
    pvalue_tables = [t for t in page_tables(at) if "Ranked above" in t.columns]     # acc_eq, then SPA
    assert len(pvalue_tables) == 2
    for stat, table in zip(("acc_eq", "spa"), pvalue_tables):
        order = [c["metric"] for c in want["lps"][0]["clusters"][stat]]
        assert table["Ranked above"].tolist() == order[:-1] and list(table.columns[1:]) == order[1:]
        for a, row in table.set_index("Ranked above").iterrows():
            for b, p in row.items():
                expected = want["lps"][0]["pvalues"][stat][a].get(b)
                assert np.isnan(p) if expected is None else p == pytest.approx(expected, abs=5e-4)
    glob = table_with(at, "Average rank")
    ranked = [r for r in want["global_ranking"] if r["complete"]]
    assert glob["Metric"].tolist()[:len(ranked)] == [r["metric"] for r in ranked]
    assert glob["Cluster"].tolist()[:len(ranked)] == [r["global_cluster"] for r in ranked]
    assert glob["Metric"].tolist()[-1] == "random metric"
    assert len(SYSTEMS) * N_SEG == len(subs["close"])
