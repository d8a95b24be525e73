"""The automatic leaderboard of a test set: one entry per team, BLEU / chrF with 95% intervals,
paired-bootstrap significance between every pair, clusters like the human leaderboard.

Which submission represents a team: its latest live primary submission, else its best (highest
chrF) live submission. Entries are sorted by chrF (then BLEU). Significance is sacrebleu's paired
bootstrap (:mod:`.significance`: 1000 resamples, seed 12345, two-sided p); system i counts as
better than j when chrF(i) > chrF(j) and p < alpha. Rank ranges and clusters then follow the
human leaderboard's organisers' rule (:mod:`leaderboard.human.clusters`, docs/method/protocols.md).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from ..human.clusters import cluster_ends, cluster_numbers, rank_ranges
from ..human.intervals import rank_shares
from ..tables import latex_escape
from .significance import DEFAULT_RESAMPLES, DEFAULT_SEED, PairedBootstrap, paired_bootstrap

SORT_METRIC = "chrf"
METRICS = ("chrf", "bleu")
CLUSTER_RULE = "organisers"


def pick_entries(subs: pd.DataFrame) -> pd.DataFrame:
    """Per team, the submission on the leaderboard: latest live primary, else best chrF (then newest)."""
    live = subs[~subs["withdrawn"].astype(bool)] if len(subs) else subs
    if live.empty:
        return live
    rows = []
    for _, part in live.groupby("team", sort=True):
        primaries = part[part["primary"].astype(bool)]
        if len(primaries):
            rows.append(primaries.sort_values("id").iloc[-1])
            continue
        ranked = part.assign(_chrf=part["chrf"].astype(float).fillna(-np.inf)).sort_values(
            ["_chrf", "id"], ascending=[False, False])
        rows.append(ranked.drop(columns="_chrf").iloc[0])
    return pd.DataFrame(rows).reset_index(drop=True)


def directional(p: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """p[i, j] kept where system i scores higher than j, else 1: 'i is significantly better than j'."""
    better = scores[:, None] > scores[None, :]
    out = np.where(better, p, 1.0)
    np.fill_diagonal(out, np.nan)
    return out


def build_board(entries: pd.DataFrame, stats: Mapping[int, Mapping[str, np.ndarray]], *,
                n_samples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, alpha: float = 0.05) -> dict:
    """The leaderboard of ``entries`` (rows of :func:`pick_entries`) from their stored statistics.

    Returns ``{"systems": [...], "pvalues": {metric: {a: {b: p}}}, "bootstrap": {...}}``; each
    system has team, system, submission, primary, bleu, chrf, bleu_ci, chrf_ci ([lower, upper]),
    rank_lo, rank_hi, cluster and rank_shares (the share of the bootstrap resamples in which it takes
    each rank by the sort metric, 1 = best). Entries without statistics (no reference yet) come last,
    unscored.
    """
    scored = entries[[int(i) in stats and all(k in stats[int(i)] for k in METRICS) for i in entries["id"]]] \
        if len(entries) else entries
    unscored = entries.drop(index=scored.index) if len(entries) else entries
    systems = [str(s) for s in scored["system"]]
    results: dict[str, PairedBootstrap] = {}
    for metric in METRICS:
        per = {name: stats[int(sid)][metric] for name, sid in zip(systems, scored["id"])}
        results[metric] = paired_bootstrap(per, metric, n_samples=n_samples, seed=seed)
    chrf, bleu = results["chrf"].scores, results["bleu"].scores
    order = sorted(range(len(systems)), key=lambda i: (-chrf[i], -bleu[i], systems[i]))
    rows: list[dict] = []
    pvalues: dict[str, dict[str, dict[str, float]]] = {}
    if systems:
        sort_scores = results[SORT_METRIC].scores[order]
        p_dir = directional(results[SORT_METRIC].pvalues[np.ix_(order, order)], sort_scores)
        clusters = cluster_numbers(cluster_ends(p_dir, alpha, CLUSTER_RULE))
        lo, hi = rank_ranges(p_dir, alpha)
        shares = rank_shares(results[SORT_METRIC].samples[order].T)
        for pos, i in enumerate(order):
            entry = scored.iloc[i]
            rows.append({
                "team": str(entry["team"]), "system": systems[i], "submission": int(entry["id"]),
                "primary": bool(entry["primary"]),
                "bleu": float(bleu[i]), "chrf": float(chrf[i]),
                "bleu_ci": [float(v) for v in results["bleu"].ci[i]],
                "chrf_ci": [float(v) for v in results["chrf"].ci[i]],
                "rank_lo": int(lo[pos]), "rank_hi": int(hi[pos]), "cluster": int(clusters[pos]),
                "rank_shares": [round(float(v), 4) for v in shares[pos]],
                "constrained": _opt_bool(entry.get("constrained")), "open_source": _opt_bool(entry.get("open_source")),
            })
        for metric, res in results.items():
            pvalues[metric] = {systems[i]: {systems[j]: float(res.pvalues[i, j]) for j in order if j != i}
                               for i in order}
    for _, entry in unscored.iterrows():
        rows.append({"team": str(entry["team"]), "system": str(entry["system"]), "submission": int(entry["id"]),
                     "primary": bool(entry["primary"]), "bleu": None, "chrf": None, "bleu_ci": None,
                     "chrf_ci": None, "rank_lo": None, "rank_hi": None, "cluster": None, "rank_shares": None,
                     "constrained": _opt_bool(entry.get("constrained")),
                     "open_source": _opt_bool(entry.get("open_source"))})
    return {"systems": rows, "pvalues": pvalues,
            "bootstrap": {"test": "paired-bootstrap (sacrebleu)", "resamples": n_samples, "seed": seed,
                          "alpha": alpha, "sort": SORT_METRIC, "cluster_rule": CLUSTER_RULE}}


def _opt_bool(value) -> bool | None:
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else bool(value)


def board_signature(board: dict, signatures: Mapping[str, str]) -> str:
    """One line naming everything the leaderboard depends on (like sacrebleu's signatures)."""
    b = board["bootstrap"]
    return (f"auto|sort:{b['sort']}|test:paired-bs|n:{b['resamples']}|seed:{b['seed']}|alpha:{b['alpha']}|"
            f"rule:{b['cluster_rule']}|" + "|".join(f"{k}:[{v}]" for k, v in sorted(signatures.items())))


def board_table(board: dict) -> pd.DataFrame:
    """The leaderboard as a flat table (rank range, team, system, chrF, BLEU with intervals, cluster)."""
    rows = []
    for s in board["systems"]:
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        rank = "" if lo is None else (f"{lo}" if lo == hi else f"{lo}-{hi}")
        chrf_ci, bleu_ci = s.get("chrf_ci") or [None, None], s.get("bleu_ci") or [None, None]
        rows.append({"rank": rank, "team": s["team"], "system": s["system"], "chrf": s["chrf"],
                     "chrf_lo": chrf_ci[0], "chrf_hi": chrf_ci[1], "bleu": s["bleu"], "bleu_lo": bleu_ci[0],
                     "bleu_hi": bleu_ci[1], "cluster": s["cluster"], "primary": s["primary"],
                     "submission": s["submission"]})
    return pd.DataFrame(rows, columns=["rank", "team", "system", "chrf", "chrf_lo", "chrf_hi", "bleu", "bleu_lo",
                                       "bleu_hi", "cluster", "primary", "submission"])


def board_to_latex(board: dict, caption: str | None = None) -> str:
    """A LaTeX table (booktabs) of the leaderboard: clusters separated by rules, intervals as ±."""
    lp = board.get("lp", "")
    caption = caption or (f"Automatic scores of the {latex_escape(lp)} submissions, sorted by chrF; lines separate "
                          f"significance clusters (paired bootstrap, p $<$ {board['bootstrap']['alpha']}).")
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{rllrr}", r"\toprule",
             r"Rank & Team & System & chrF & BLEU \\", r"\midrule"]
    previous = None
    for s in board["systems"]:
        if s["chrf"] is None:
            continue
        if previous is not None and s["cluster"] != previous:
            lines.append(r"\midrule")
        previous = s["cluster"]
        rank = f"{s['rank_lo']}" if s["rank_lo"] == s["rank_hi"] else f"{s['rank_lo']}--{s['rank_hi']}"
        half = lambda ci: 0.5 * (ci[1] - ci[0])  # noqa: E731
        lines.append(f"{rank} & {latex_escape(s['team'])} & {latex_escape(s['system'])} & "
                     f"{s['chrf']:.1f} $\\pm$ {half(s['chrf_ci']):.1f} & {s['bleu']:.1f} $\\pm$ {half(s['bleu_ci']):.1f} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{caption}}}",
              f"\\label{{tab:auto-{''.join(ch for ch in lp if ch.isalnum() or ch == '-')}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"
