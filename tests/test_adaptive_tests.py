"""The WMT26 rule on item x model matrices (against scipy and a Pearmut campaign's independently
computed ranking) and the anytime paired test (validity under adaptive looks, online = offline)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leaderboard.human.adaptive_tests import (
    ALPHA, CampaignPairs, PairEvidence, advance_campaign_pairs, anytime_paired_ranking, clusters_from_better, judgment_pages,
    paired_evidence_from_pages, pair_strengths, threshold, wmt26_better, wmt26_pair_tests)


def _matrix(seed: int, items: int = 60, models: int = 5, missing: float = 0.3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(80, 12, (items, models)) + np.arange(models) * 1.5)
    x[rng.random(x.shape) < missing] = np.nan
    return x


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wmt26_pair_tests_equal_scipy(seed):
    x = _matrix(seed)
    pairs = np.array([(i, j) for i in range(5) for j in range(5) if i != j])
    res = wmt26_pair_tests(x, pairs)
    for (i, j), p_rel, p_ind in zip(pairs, res["p_paired"], res["p_unpaired"]):
        assert p_rel == pytest.approx(stats.ttest_rel(x[:, i], x[:, j], nan_policy="omit").pvalue, rel=1e-9)
        assert p_ind == pytest.approx(stats.ttest_ind(x[:, i], x[:, j], nan_policy="omit").pvalue, rel=1e-9)


def test_wmt26_pair_tests_runs_axis_and_degenerate_pairs():
    runs = np.stack([_matrix(s) for s in range(3)])
    pairs = np.array([[0, 1], [2, 4]])
    batched = wmt26_pair_tests(runs, pairs)
    for r in range(3):
        single = wmt26_pair_tests(runs[r], pairs)
        np.testing.assert_allclose(batched["p_paired"][r], single["p_paired"])
        np.testing.assert_allclose(batched["p_unpaired"][r], single["p_unpaired"])
    # one common item: the paired test is undefined (NaN, never significant), as in scipy
    x = np.array([[50.0, 60.0], [np.nan, 70.0], [55.0, np.nan], [65.0, np.nan]])
    res = wmt26_pair_tests(x, np.array([[0, 1]]))
    assert np.isnan(res["p_paired"][0])
    assert res["p_unpaired"][0] == pytest.approx(stats.ttest_ind(x[:, 0], x[:, 1], nan_policy="omit").pvalue)


def test_clusters_line_rule_hand_case():
    # a > b, a > c, b > c, but not b > d, c ~ d: lines after a only ... and after b? not (b !> d)
    means = np.array([90.0, 80.0, 70.0, 69.0])
    better = np.zeros((4, 4), bool)
    better[0, 1:] = True
    better[1, 2] = True
    order, clusters = clusters_from_better(means, better)
    assert order.tolist() == [0, 1, 2, 3]
    assert clusters.tolist() == [1, 2, 2, 2]
    better[1, 3] = True
    assert clusters_from_better(means, better)[1].tolist() == [1, 2, 3, 3]


def _pearmut_item_matrix(folder):
    """The counted scores of a Pearmut 1.1.6 log as an item x model matrix (several annotations of one
    item averaged), read by hand: per-user resets, tutorial and attention-check pages skipped."""
    lines = [json.loads(line) for line in (folder / "annotations.jsonl").read_text(encoding="utf-8").splitlines()]
    last_reset = {}
    for i, line in enumerate(lines):
        if line.get("annotation") == "__RESET__":
            last_reset[line["user_id"]] = i
    rows = []
    for i, line in enumerate(lines):
        if line.get("annotation") == "__RESET__" or i <= last_reset.get(line["user_id"], -1):
            continue
        if str(line.get("item_i", "")).startswith(("welcome_", "random_", "goodbye_")):
            continue
        first = line["item"][0].get("item_id", "")
        if not first or first.startswith("attention_check_") or "_#_tutorial_#_" in first:
            continue
        for seg, ann in zip(line["item"], line["annotation"]):
            for model, value in ann.items():
                rows.append((seg["item_id"], model, float(value["score"])))
    frame = pd.DataFrame(rows, columns=["item", "model", "score"])
    return frame.groupby(["item", "model"])["score"].mean().unstack("model")


@pytest.mark.parametrize("campaign", ["dynamic", "taskbased"])
def test_wmt26_rule_reproduces_pearmut_expected_ranking(shared, campaign):
    folder = shared / "pearmut" / campaign
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))["wmt26"]
    matrix = _pearmut_item_matrix(folder)
    names = list(matrix.columns)
    means, better = wmt26_better(matrix.to_numpy())
    order, clusters = clusters_from_better(means, better)
    got = [{"system": names[i], "mean": means[i], "items": int(matrix.iloc[:, i].notna().sum()),
            "cluster": int(clusters[i])} for i in order]
    assert [g["system"] for g in got] == [s["system"] for s in expected["systems"]]
    for g, s in zip(got, expected["systems"]):
        assert g["mean"] == pytest.approx(s["mean"], rel=1e-12)
        assert (g["items"], g["cluster"]) == (s["items"], s["cluster"])
    index = {n: i for i, n in enumerate(names)}
    pairs = np.array([[index[p["a"]], index[p["b"]]] for p in expected["pairs"]])
    res = wmt26_pair_tests(matrix.to_numpy(), pairs)
    for k, p in enumerate(expected["pairs"]):
        assert res["p_paired"][k] == pytest.approx(p["p_paired"], rel=1e-6)
        assert res["p_unpaired"][k] == pytest.approx(p["p_unpaired"], rel=1e-6)
        assert res["n_paired"][k] == p["common_items"]
        assert better[pairs[k, 0], pairs[k, 1]] == p["significant"]


def _feed(x: np.ndarray, linear: bool = False, hinted: bool = True) -> PairEvidence:
    """Observations x (runs, steps) of pair (0, 1), fed one step at a time."""
    runs, steps = x.shape
    ev = PairEvidence.empty(runs, 2)
    zero, one, mask = np.zeros(runs, int), np.ones(runs, int), np.ones(runs, bool)
    for t in range(steps):
        ev.add(zero, one, x[:, t], mask, linear=linear, hint=ev.hints()[:, 0, 1] if hinted else None)
    return ev


@pytest.mark.parametrize("hinted", [True, False])
@pytest.mark.parametrize("linear", [False, True])
def test_anytime_test_holds_its_level_when_looked_at_after_every_page(linear, hinted):
    # truly equal pair: skewed but symmetric page differences (as of two equally good systems), and
    # for the linear form a mean-zero but asymmetric null; sup over 400 looks per sequence
    rng = np.random.default_rng(7)
    runs, steps = 3000, 400
    if linear:
        x = np.where(rng.random((runs, steps)) < 0.8, 5.0, -20.0) + rng.normal(0, 8, (runs, steps))
        x = np.clip(x, -100, 100)
    else:
        a = np.clip(90 + 12 * rng.standard_t(3, (runs, steps)), 0, 100)
        b = np.clip(90 + 12 * rng.standard_t(3, (runs, steps)), 0, 100)
        x = a - b
    ev = _feed(x, linear, hinted)
    claims = ev.better()[:, 0, 1] | ev.better()[:, 1, 0]
    # Ville: at most alpha; 3000 sequences give a standard error of 0.4 points
    assert claims.mean() <= ALPHA + 0.01
    # and it has power: a 4-point advantage at a page sd of 12 is found within 400 pages
    ev = _feed(rng.normal(4, 12, (500, 400)), linear, hinted)
    assert ev.better()[:, 0, 1].mean() > 0.9
    assert not ev.better()[:, 1, 0].any()


def test_signed_e_process_on_a_hand_worked_pair():
    # two pages of pair (0, 1) with the hints given. Page 1: x = 10, no history: rms = sqrt(2 * 10^2 / 2)
    # = 10, scale 2 * 10 = 20, psi = 0.5; hint 5 -> mean psi 0.25, mean square 0.25, variance
    # max(0.25 - 0.0625, 0.0625) = 0.1875, bet 0.25 / (0.1875 + 0.0625) = 1 -> capped at 0.9: factor 1.45.
    # Page 2: x = -4, rms = sqrt((100 + 200) / 3) = 10, psi = -0.2; hint -2 -> mean -0.1, variance 0.24,
    # bet -0.1 / 0.25 = -0.4: factor 1 + (-0.4)(-0.2) = 1.08 (a bet on "b better" that lost).
    ev = PairEvidence.empty(1, 2)
    zero, one, mask = np.zeros(1, int), np.ones(1, int), np.ones(1, bool)
    ev.add(zero, one, np.array([10.0]), mask, hint=np.array([5.0]))
    ev.add(zero, one, np.array([-4.0]), mask, hint=np.array([-2.0]))
    assert ev.log_up[0, 0, 1] == pytest.approx(np.log(1.45))
    assert ev.log_down[0, 0, 1] == pytest.approx(np.log(1.08))
    assert ev.max_log[0, 0, 1] == pytest.approx(np.log(1.45 * 1.08))
    assert ev.a_ahead[0, 0, 1]
    assert not ev.better().any()                     # 1.566 < 1 / 0.05
    # six more pages at x = 20 with hint 20 reach e = 20: the claim is "a better", not "b better"
    for _ in range(6):
        ev.add(zero, one, np.array([20.0]), mask, hint=np.array([20.0]))
    assert np.exp(ev.max_log[0, 0, 1]) >= 20
    assert ev.better()[0, 0, 1] and not ev.better()[0, 1, 0]
    assert ev.decided()[0, 1, 0]


def test_offline_evidence_equals_online():
    rng = np.random.default_rng(3)
    rows, online = [], PairEvidence.empty(1, 3)
    names = ["A", "B", "C"]
    scores_prev = set()
    for page in range(120):
        shown = sorted(rng.choice(3, 2, replace=False).tolist())
        random_item = bool(rng.random() < 0.3)
        fresh = {m: bool(rng.random() < 0.7) for m in shown}
        s = {m: float(np.clip(80 + 3 * m + rng.normal(0, 10), 0, 100)) for m in shown}
        for m in shown:
            rows.append({"page": f"p{page}", "model": names[m], "score": s[m], "fresh": fresh[m],
                         "random_item": random_item})
        a, b = shown
        both = fresh[a] and fresh[b]
        online.add(np.array([a]), np.array([b]), np.array([s[a] - s[b]]), np.array([both or random_item]),
                   linear=np.array([not both]), hint=online.hints()[:, a, b])
    del scores_prev
    offline = paired_evidence_from_pages(pd.DataFrame(rows)).set_index(["a", "b"])
    for (i, j) in [(0, 1), (0, 2), (1, 2)]:
        row = offline.loc[(names[i], names[j])]
        assert row["pages"] == online.n[0, i, j]
        assert row["log_e"] == pytest.approx(online.max_log[0, i, j], abs=1e-9)
        claims = online.better()
        assert (row["a_better"], row["b_better"]) == (claims[0, i, j], claims[0, j, i])


def _campaign_log(seed: int, pages: int = 300, docs: int = 120, m: int = 5) -> pd.DataFrame:
    """Submitted pages, one row per page x model: 2-4 models on a document, some documents drawn at
    random, some annotators' pages not counting, model i about 6 * i points above model 0."""
    rng = np.random.default_rng(seed)
    rows = []
    for page in range(pages):
        shown = rng.choice(m, rng.integers(2, 5), replace=False)
        doc, drawn, counts = int(rng.integers(docs)), bool(rng.random() < 0.2), bool(rng.random() < 0.85)
        for model in shown:
            rows.append({"page": 1000 + page, "order": 10 * page + int(rng.integers(3)), "doc": doc,
                         "model": int(model), "score": float(np.clip(60 + 6 * model + rng.normal(0, 8), 0, 100)),
                         "random_item": drawn, "counts": counts})
    return pd.DataFrame(rows)


def _advance(state: CampaignPairs, t: pd.DataFrame) -> CampaignPairs:
    return advance_campaign_pairs(state, t["page"].to_numpy(), t["order"].to_numpy(), t["doc"].to_numpy(),
                                  t["model"].to_numpy(), t["score"].to_numpy(), t["random_item"].to_numpy(),
                                  t["counts"].to_numpy())


@pytest.mark.parametrize("seed", [0, 1])
def test_campaign_pairs_in_shuffled_batches_equal_all_at_once_and_the_offline_test(seed):
    log = _campaign_log(seed)
    m = 5
    at_once = _advance(CampaignPairs.empty(m), log.sample(frac=1.0, random_state=seed))
    # the same pages in consecutive batches of random sizes, each batch's rows shuffled
    rng = np.random.default_rng(seed + 10)
    pages = log["page"].unique()
    cuts = np.sort(rng.choice(np.arange(1, len(pages)), 7, replace=False))
    batched = CampaignPairs.empty(m)
    for chunk in np.split(pages, cuts):
        part = log[log["page"].isin(chunk)]
        batched = _advance(batched, part.sample(frac=1.0, random_state=int(rng.integers(1 << 30))))
    for name in ("pair_n", "pair_sum", "pair_sumsq", "ev_n", "ev_x2", "log_up", "log_down", "max_log",
                 "hint_n", "hint_s"):
        np.testing.assert_allclose(getattr(batched, name), getattr(at_once, name), rtol=1e-10, atol=1e-9,
                                   err_msg=name)
    np.testing.assert_array_equal(batched.better(), at_once.better())
    assert batched.pages == at_once.pages == len(pages)
    # pair statistics over every page: a plain pandas self-merge of the log
    wide = log.merge(log, on="page", suffixes=("_a", "_b"))
    wide = wide[wide["model_a"] != wide["model_b"]].assign(x=lambda f: f["score_a"] - f["score_b"])
    ref = wide.groupby(["model_a", "model_b"])["x"].agg(["size", "sum", lambda v: (v ** 2).sum()])
    for (a, b), (n, s1, s2) in ref.iterrows():
        assert at_once.pair_n[a, b] == n
        assert at_once.pair_sum[a, b] == pytest.approx(s1, abs=1e-9)
        assert at_once.pair_sumsq[a, b] == pytest.approx(s2, abs=1e-7)
    # the test: paired_evidence_from_pages on the counting pages in submission order, a translation
    # fresh on its document's first page (over every page, counting or not)
    ordered = log.sort_values(["order"], kind="stable")
    first = ordered.groupby(["doc", "model"])["page"].transform("first")
    counted = ordered.assign(fresh=first == ordered["page"], model=ordered["model"].map(lambda i: f"m{i}"))
    counted = counted[counted["counts"]].sort_values("order", kind="stable")
    offline = paired_evidence_from_pages(counted[["page", "model", "score", "fresh", "random_item"]])
    assert len(offline) == m * (m - 1) // 2
    better = at_once.better()
    for row in offline.itertuples(index=False):
        a, b = int(row.a[1:]), int(row.b[1:])
        assert at_once.ev_n[a, b] == row.pages
        assert at_once.max_log[a, b] == pytest.approx(row.log_e, abs=1e-9)
        assert (better[a, b], better[b, a]) == (row.a_better, row.b_better)
    # some pairs claimed and some not, so the comparison of claims is not vacuous
    claimed = offline["a_better"] | offline["b_better"]
    assert claimed.any() and not claimed.all()


def test_judgment_pages_marks_translations_seen_before():
    frame = pd.DataFrame({
        "hit": ["h1", "h1", "h1", "h1", "h2", "h2", "h2", "h2"],
        "segment": ["s1", "s1", "s2", "s2", "s1", "s1", "s3", "s3"],
        "system": ["A", "B", "A", "B", "A", "C", "A", "C"],
        "raw": [90, 80, 70, 60, 85, 75, 95, 65],
    })
    pages = judgment_pages(frame).set_index(["page", "model"])
    assert pages.loc[("h1", "A"), "score"] == 80 and pages.loc[("h1", "A"), "fresh"]
    assert not pages.loc[("h2", "A"), "fresh"]      # s1 was scored for A on h1
    assert pages.loc[("h2", "C"), "fresh"]
    evidence = paired_evidence_from_pages(pages.reset_index())
    assert evidence[["a", "b", "pages"]].values.tolist() == [["A", "B", 1]]   # A–C on h2 is not fresh


def test_pair_strengths_recover_differences():
    # pages comparing a chain A-B, B-C with exact differences 3 and 2: strengths 5 apart
    n = np.array([[0, 10, 0], [10, 0, 10], [0, 10, 0]], float)
    sums = np.array([[0, 30, 0], [-30, 0, 20], [0, -20, 0]], float)
    theta = pair_strengths(n, sums, np.zeros(3), weight=1e-6)
    assert theta[0] - theta[1] == pytest.approx(3, abs=1e-3)
    assert theta[0] - theta[2] == pytest.approx(5, abs=1e-3)


def test_anytime_paired_ranking_on_a_frame():
    rng = np.random.default_rng(5)
    rows = []
    quality = {"A": 92, "B": 80, "C": 79}
    for page in range(300):
        for m, q in quality.items():
            rows.append({"hit": f"p{page}", "segment": f"s{page}", "system": m,
                         "raw": float(np.clip(round(q + rng.normal(0, 10)), 0, 100))})
    out = anytime_paired_ranking(pd.DataFrame(rows))
    assert [s["system"] for s in out["systems"]][0] == "A"
    assert out["systems"][0]["cluster"] == 1 and out["systems"][1]["cluster"] == 2
    assert out["test"] == "anytime-paired"
    assert threshold() == pytest.approx(np.log(20))
