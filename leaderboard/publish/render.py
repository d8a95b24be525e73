"""A published ranking rendered for people: the table of the Leaderboard page and downloads, the
Findings-style LaTeX table, and the caption that says in words how it was computed."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ..naming import is_human
from ..tables import latex_escape


def _ci(s: dict, key: str) -> tuple[float | None, float | None]:
    ci = s.get(f"{key}_ci")
    return (ci[0], ci[1]) if ci else (None, None)


def is_human_entry(s: dict) -> bool:
    """A ranking entry's human-translation mark; snapshots published before the mark existed: WMT naming."""
    return bool(s["human"]) if s.get("human") is not None else is_human(s["system"])


#: prefix of the per-domain columns of :func:`ranking_table` (``domain:news``)
DOMAIN_PREFIX = "domain:"


def domain_names(ranking: dict) -> list[str]:
    """The domains a ranking has per-domain scores for (sorted; empty when none)."""
    return sorted({str(d) for s in ranking.get("systems") or [] for d in (s.get("domains") or {})})


def ranking_table(ranking: dict) -> pd.DataFrame:
    """The published table as a frame: rank range, system, human, Ave, Ave z (MQM) with their 95% interval
    bounds (``<score>_lo`` / ``<score>_hi``, empty when the snapshot has none), WMT23's H score ``h`` when
    the ranking has it, one ``domain:<name>``
    column per domain when the ranking has per-domain scores (of its ``domain_score``), N, N.ALL,
    cluster, wins."""
    rows = []
    domains = domain_names(ranking)
    for s in ranking["systems"]:
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        row = {"rank": f"{lo}" if lo == hi else f"{lo}-{hi}", "system": s["system"], "human": is_human_entry(s)}
        keys = ("mqm",) if "mqm" in s else ("ave", "ave_z")  # an MQM ranking: lower is better, no DA columns
        for key in keys:
            row[key] = s.get(key)
            row[f"{key}_lo"], row[f"{key}_hi"] = _ci(s, key)
        if "h" in s:  # WMT23's H score
            row["h"] = s.get("h")
        for name in domains:
            row[DOMAIN_PREFIX + name] = (s.get("domains") or {}).get(name)
        row.update(n=s.get("n"), n_all=s.get("n_all"), cluster=s.get("cluster"), wins=s.get("wins"))
        rows.append(row)
    table = pd.DataFrame(rows)
    if domains:
        table.attrs["domain_score"] = str(ranking.get("domain_score") or "ave")
    return table


def ranking_to_latex(ranking: dict, caption: str | None = None, label: str | None = None) -> str:
    """A WMT-Findings-style LaTeX table: clusters separated by horizontal rules.

    Columns: rank range, Ave. (raw), Ave. z (MQM), its 95% interval when the snapshot has one, system;
    human translations are set in grey with a dagger, explained under the table, as the Findings papers
    mark them. The signature goes into the caption. Needs the ``booktabs`` and ``xcolor`` packages.
    """
    lp = ranking.get("lp", "")
    caption = caption or (f"Official results of the {latex_escape(lp)} human evaluation "
                          f"(signature: \\texttt{{{latex_escape(ranking.get('signature', ''))}}}).")
    systems = ranking.get("systems") or []
    mqm = bool(systems) and "mqm" in systems[0]
    key = "mqm" if mqm else "ave_z"
    with_ci = any(s.get(f"{key}_ci") for s in systems)
    any_human = any(is_human_entry(s) for s in systems)
    head = r"Rank & Ave. & MQM" if mqm else r"Rank & Ave. & Ave.\ $z$"
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{rrr" + ("c" if with_ci else "") + "l}",
             r"\toprule", head + (r" & 95\% CI" if with_ci else "") + r" & System \\", r"\midrule"]
    previous = None
    digits = 2 if mqm else 3
    for s in systems:
        if previous is not None and s.get("cluster") != previous:
            lines.append(r"\midrule")
        previous = s.get("cluster")
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        cells = [f"{lo}" if lo == hi else f"{lo}--{hi}", "" if s.get("ave") is None else f"{s['ave']:.1f}",
                 "" if s.get(key) is None else f"{s[key]:.{digits}f}"]
        if with_ci:
            ci = s.get(f"{key}_ci")
            cells.append(f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "--")
        name = latex_escape(s["system"])
        if is_human_entry(s):
            cells = [r"\textcolor{gray}{" + c + "}" if c else c for c in cells]
            name = r"\textcolor{gray}{" + name + r"}$^\dagger$"
        lines.append(" & ".join(cells + [name]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if any_human:
        lines.append(r"\\[2pt]{\footnotesize $^\dagger$\,human translation}")
    lines.append(f"\\caption{{{caption}}}")
    if label or lp:
        lines.append(f"\\label{{{label or 'tab:da-' + re.sub(r'[^A-Za-z0-9-]', '', lp)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


_TESTS = {
    "mwu-greater": "one-sided Mann-Whitney U (Wilcoxon rank-sum) tests on the per-segment {score} scores",
    "signed-rank-greater": "one-sided Wilcoxon signed-rank tests on the segments both systems have ({score} scores)",
    "signed-rank-greater-paired": "one-sided Wilcoxon signed-rank tests on the segments both systems have",
    "ar-greater": "paired approximate randomisation tests on shared segments ({trials} trials, seed {seed})",
    "ar-greater-paired": "paired approximate randomisation tests on shared segments ({trials} trials, seed {seed})",
    "signed-rank-domain-stouffer": "two-sided Wilcoxon signed-rank tests per domain on shared segments, combined "
                                   "with Stouffer's Z ({score} scores; a win also needs the higher score)",
    "mwu-greater-shared": "one-sided Mann-Whitney U (Wilcoxon rank-sum) tests on the {score} scores of the "
                          "segments both systems have",
    "wave-signed-rank-greater": "one-sided Wilcoxon signed-rank tests on both ratings of every item (same-wave and "
                                "cross-wave pairs, {score} scores)",
}
_SORTS = {"ave_z": "Ave. z (the mean of per-segment worker-standardised scores)",
          "ave": "Ave. (the mean of per-segment raw 0-100 scores)",
          "ave-domain-mean": "Ave. (the mean over domains of each domain's mean per-segment raw 0-100 score)",
          "mqm-ascending": "MQM (the mean over rated segments of the error weights, averaged over raters; "
                           "lower is better)"}


def ranking_caption(ranking: dict, spec: Any) -> str:
    """What the published table shows, in words derived from its ``spec``
    (:mod:`leaderboard.human.spec`; None: not recorded): order, significance test and threshold,
    cluster rule, worker QC, standardisation, intervals and the human-translation mark."""
    score = (spec.score if spec is not None else None) or ""
    sort = spec.sort if spec is not None else None
    test = spec.test if spec is not None else None
    parts = []
    if sort in _SORTS:
        parts.append(f"Systems are ordered by {_SORTS[sort]}.")
    alpha = ranking.get("alpha", _number(spec.alpha) if spec is not None and spec.alpha is not None else None)
    if test:
        text = _TESTS.get(test, f"{test} tests").format(score=score, trials=_number(spec.trials, "?"),
                                                          seed=_number(spec.seed, "?"))
        rule = ranking.get("cluster_rule", spec.cluster_rule)
        rule_text = {"organisers": "a cluster ends after a system whose wins equal the number of systems below it "
                                   "(the organisers' rule)",
                     "strict": "a cluster ends where every system above beats every system below",
                     "wmt24": "a cluster ends unless a system above and a system below it differ at p > "
                              f"{alpha} (the WMT24 rule)",
                     "wmt25": "a cluster ends where no system's rank range crosses it (the WMT25 rule)"}.get(
            str(rule), f"cluster rule {rule}")
        ranks = ("the nearest system above that beats it + 1 to the nearest below that it beats - 1"
                 if test == "wave-signed-rank-greater" else "1 + losses to n - wins")
        parts.append(f"Rules separate clusters from {text} at p < {alpha}; {rule_text}. Rank gives each "
                     f"system's rank range ({ranks}).")
    else:
        parts.append("Rules separate clusters and Rank gives each system's rank range; the signature records "
                     "how they were computed.")
    qc = spec.qc_label if spec is not None else None
    if qc:
        if qc == "release":
            parts.append("Workers: as released by the organisers, who kept only those passing their quality "
                         "control (no re-test).")
        elif qc == "none":
            parts.append("Workers: no quality control.")
        else:
            method, _, level = qc.partition("@")
            parts.append(f"Workers: kept when their quality-control test ({method}) gives p < {level or '?'}.")
    std = spec.std_label if spec is not None else None
    if std:
        parts.append("z-scores: as given in the data." if std == "given" else
                     "z-scores: standardised per worker from raw scores"
                     + (" (REF items left out)" if "-noref" in std else "")
                     + (" (BAD_REF items left out)" if "-nobadref" in std else "") + ".")
    if spec is not None and spec.resamples:
        parts.append(f"Intervals: 95% bootstrap intervals resampling the test set's segments "
                     f"({spec.resamples} resamples, seed {_number(spec.seed, '?')}); rank stability on its own tab.")
    else:
        parts.append("Intervals: none in this version.")
    if any(is_human_entry(s) for s in ranking.get("systems", [])):
        parts.append("† human translation (grey).")
    return " ".join(parts)


def _number(value: Any, missing: str = "none") -> str:
    """A spec's number as its signature writes it (``0.05``, ``1000``; None: ``missing``)."""
    if value is None:
        return missing
    return f"{value:g}" if isinstance(value, float) else str(value)
