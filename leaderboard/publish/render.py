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


#: significance test (a spec's ``test``) -> (the heat map's colour-bar title, the test in words; ``{score}``: a
#: :data:`SCORES` phrase, ``{trials}``: ", N trials, seed S" or nothing)
TESTS: dict[str, tuple[str, str]] = {
    "mwu-greater": ("one-sided rank-sum", "one-sided Wilcoxon rank-sum (Mann-Whitney U) test on the systems' "
                                          "per-segment {score}"),
    "signed-rank-greater": ("one-sided signed-rank", "one-sided Wilcoxon signed-rank test on the segments both "
                                                     "systems share ({score})"),
    "ar-greater": ("approx. randomisation", "one-sided paired approximate randomisation test on the segments both "
                                            "systems share ({score}{trials})"),
    "signed-rank-domain-stouffer": ("signed-rank + Stouffer", "two-sided Wilcoxon signed-rank test per domain on "
                                    "shared segments ({score}), combined with Stouffer's Z (a win also needs the "
                                    "higher score)"),
    "mwu-greater-shared": ("one-sided rank-sum", "one-sided Wilcoxon rank-sum (Mann-Whitney U) test on the "
                                                 "systems' {score} of the segments both have"),
    "wave-signed-rank-greater": ("one-sided signed-rank", "one-sided Wilcoxon signed-rank test on both ratings of "
                                                          "every item, same-wave and cross-wave pairs ({score})"),
}
TESTS["signed-rank-greater-paired"] = TESTS["signed-rank-greater"]  # the MQM names of the same tests
TESTS["ar-greater-paired"] = TESTS["ar-greater"]
SCORES: dict[str, str] = {"z": "worker-standardised z averages", "raw": "raw 0–100 averages",
                          "mqm": "MQM scores"}
CLUSTER_RULES: dict[str, str] = {
    "organisers": "the organisers' rule of the WMT tables (a cluster ends after the system at position i when "
                  "it significantly beats all N − i systems below it)",
    "strict": "the strict rule (a cluster ends only where every system above significantly beats every "
              "system below)",
    "wmt24": "the WMT24 rule (a cluster ends unless some system above and some system below it are not "
             "significantly different)",
    "wmt25": "the WMT25 rule (a cluster ends where no system's rank range crosses it)",
}
#: sort key -> (short name, what the order is)
SORTS: dict[str, tuple[str, str]] = {
    "ave_z": ("Ave z", "Ave. z (the mean of per-segment worker-standardised scores)"),
    "ave": ("Ave (raw)", "Ave. (the mean of per-segment raw 0-100 scores)"),
    "ave-domain-mean": ("Ave (raw), the mean over domains of per-domain means",
                        "Ave. (the mean over domains of each domain's mean per-segment raw 0-100 score)"),
    "mqm-ascending": ("MQM", "MQM (the mean over rated segments of the error weights, averaged over raters; "
                             "lower is better)"),
}


def test_short(spec: Any) -> str:
    """The heat map's colour-bar title: which test the p-values come from (None: unknown)."""
    return TESTS.get(getattr(spec, "test", None) or "", ("p-value",))[0]


def qc_phrase(label: str | None) -> str:
    """A spec's ``qc_label`` (the signature's ``qc`` field) in words."""
    if not label:
        return "no recorded worker quality control"
    if label == "release":
        return "the organisers' worker quality control (a WMT release holds only the workers who passed; no re-test)"
    if label == "none":
        return "no worker quality control"
    method, _, alpha = label.partition("@")
    return f"worker quality control by the {method} test at p < {alpha or '0.05'}, run on the stored judgments"


def std_phrase(label: str | None) -> str:
    """A spec's ``std_label`` (the signature's ``std`` field) in words."""
    if not label or label == "given":
        return "z-scores as given in the data (the release's own per-worker standardisation)"
    if label.startswith("worker"):
        extra = [t for t, flag in (("REF items left out", "-noref"), ("BAD_REF items left out", "-nobadref"))
                 if flag in label]
        return "z-scores standardised per worker from the raw scores" + (f" ({', '.join(extra)})" if extra else "")
    return f"standardisation {label}"


def describe(spec: Any, *, alpha: Any = None, cluster_rule: str | None = None) -> dict[str, str]:
    """Phrases for a ranking's spec: ``test``, ``alpha``, ``p_below``, ``clusters``, ``qc``, ``std``, ``score``,
    ``sort``, ``order`` (``alpha`` / ``cluster_rule``: the ranking's own, when it records them).

    Fields the spec does not record (or no spec: None) give neutral phrases ("the published test"),
    never a guess."""
    def get(name: str, given: Any = None) -> str | None:
        value = given if given is not None else getattr(spec, name, None)
        return None if value is None else _number(value)
    score, trials, test, sort = get("score") or "", get("trials"), get("test"), get("sort")
    alpha, rule = get("alpha", alpha), get("cluster_rule", cluster_rule)
    score_text = SCORES.get(score, score or "scores")
    if test in TESTS:
        test_text = TESTS[test][1].format(score=score_text,
                                          trials=f", {trials} trials, seed {get('seed') or '?'}" if trials else "")
    else:
        test_text = f"the published significance test ({test})" if test else "the published significance test"
    return {
        "test": test_text,
        "alpha": alpha or "the published threshold",
        "p_below": f"p < {alpha}" if alpha else "p below the published threshold",
        "clusters": CLUSTER_RULES.get(rule or "", f"the {rule} rule" if rule else "the published cluster rule"),
        "qc": qc_phrase(get("qc_label")),
        "std": std_phrase(get("std_label")),
        "score": score_text,
        "sort": SORTS[sort][0] if sort in SORTS else sort or "the published order",
        "order": SORTS[sort][1] if sort in SORTS else "",
    }


def ranking_caption(ranking: dict, spec: Any) -> str:
    """What the published table shows, in words derived from its ``spec``
    (:mod:`leaderboard.human.spec`; None: not recorded): order, significance test and threshold,
    cluster rule, worker QC, standardisation, intervals and the human-translation mark."""
    words = describe(spec, alpha=ranking.get("alpha"), cluster_rule=ranking.get("cluster_rule"))
    test = getattr(spec, "test", None)
    parts = [f"Systems are ordered by {words['order']}."] if words["order"] else []
    if test:
        ranks = ("the nearest system above that beats it + 1 to the nearest below that it beats - 1"
                 if test == "wave-signed-rank-greater" else "1 + losses to n - wins")
        parts.append(f"Rules separate clusters from the {words['test']} at {words['p_below']}, with "
                     f"{words['clusters']}. Rank gives each system's rank range ({ranks}).")
    else:
        parts.append("Rules separate clusters and Rank gives each system's rank range; the signature records "
                     "how they were computed.")
    if getattr(spec, "qc_label", None):
        parts.append(f"Workers: {words['qc']}.")
    if getattr(spec, "std_label", None):
        parts.append(f"Scores: {words['std']}.")
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
