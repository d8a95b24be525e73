"""Captions that say what was computed: phrases derived from a ranking's specification.

A published ranking stores its protocol, QC, standardisation, test, threshold and cluster rule in
its spec (:mod:`leaderboard.human.spec`, the snapshot's ``spec`` artifact); the pages' captions and
legends are built from it, never written for one protocol. Plain functions (no Streamlit).
"""

from __future__ import annotations

from typing import Any

TESTS: dict[str, str] = {
    "mwu-greater": "one-sided Wilcoxon rank-sum (Mann-Whitney U) test on the systems' per-segment {score}",
    "signed-rank-greater": "one-sided Wilcoxon signed-rank test on the segments both systems share ({score})",
    "ar-greater": "one-sided paired approximate randomisation test on the segments both systems share ({score}"
                  "{trials})",
    "signed-rank-domain-stouffer": "two-sided Wilcoxon signed-rank test per domain on shared segments ({score}), "
                                   "combined with Stouffer's Z (a win also needs the higher score)",
    "mwu-greater-shared": "one-sided Wilcoxon rank-sum (Mann-Whitney U) test on the systems' {score} of the "
                          "segments both have",
    "wave-signed-rank-greater": "one-sided Wilcoxon signed-rank test on both ratings of every item, same-wave and "
                                "cross-wave pairs ({score})",
    "signed-rank-greater-paired": "one-sided Wilcoxon signed-rank test on the segments both systems share ({score})",
    "ar-greater-paired": "one-sided paired approximate randomisation test on the segments both systems share "
                         "({score}{trials})",
}
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


def qc_phrase(label: str | None) -> str:
    """A spec's ``qc_label`` (the signature's ``qc`` field) in words."""
    if not label:
        return "no recorded worker quality control"
    if label == "release":
        return "the organisers' worker quality control (a WMT release holds only the workers who passed)"
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


def describe(spec: Any) -> dict[str, str]:
    """Phrases for a ranking's spec: ``test``, ``alpha``, ``clusters``, ``qc``, ``std``, ``score``, ``sort``.

    Fields the spec does not record (or no spec: None) give neutral phrases ("the published test"),
    never a guess."""
    def get(name: str) -> str | None:
        value = getattr(spec, name, None)
        if value is None:
            return None
        return f"{value:g}" if isinstance(value, float) else str(value)
    score = get("score") or ""
    trials = get("trials")
    test = get("test")
    template = TESTS.get(test or "")
    score_text = SCORES.get(score, score or "scores")
    if template:
        test_text = template.format(score=score_text, trials=f", {trials} trials" if trials else "")
    else:
        test_text = f"the published significance test ({test})" if test else "the published significance test"
    alpha = get("alpha")
    rule = get("cluster_rule")
    sort = get("sort")
    return {
        "test": test_text,
        "alpha": alpha or "the published threshold",
        "p_below": f"p < {alpha}" if alpha else "p below the published threshold",
        "clusters": CLUSTER_RULES.get(rule or "", f"the {rule} rule" if rule else "the published cluster rule"),
        "qc": qc_phrase(get("qc_label")),
        "std": std_phrase(get("std_label")),
        "score": score_text,
        "sort": {"ave_z": "Ave z", "ave": "Ave (raw)", "mqm": "MQM", "ave-domain-mean": "Ave (raw), the mean over "
                 "domains of per-domain means"}.get(sort or "", sort or "the published order"),
    }
