"""In-task checks of cESA: tutorial answers and attention checks against their expected answers, and the
completion code's verdict.

A check is a segment's ``validation``: per model a rule with any of ``score: [low, high]``,
``error_spans: [{start_i, end_i, severity}]`` (each bound a number or a ``[low, high]`` range, inclusive
character offsets as a Pearmut campaign gives them; every expected span must be matched by one of the
annotator's), ``score_greaterthan: <other model>`` (strictly higher), and ``warning``: a rule with a
warning is *loud* (the annotator is told and must redo the page until it holds), one without is
*silent* (only logged). The verdict: an annotator passes when the failed checks are at most the
campaign's threshold — a whole number counts failures, a fraction below 1 is a share of the checks
(Pearmut's ``validation_threshold``); no check at all passes.
"""

from __future__ import annotations

from typing import Any


def _in(value: float, bound: Any) -> bool:
    if isinstance(bound, list):
        return bound[0] <= value <= bound[1]
    return value == bound


def pearmut_span(span: dict, text: str, tokens: list[str]) -> tuple[int, int]:
    """An answer's span as Pearmut's inclusive (start_i, end_i); a special token sits at len(text) + its index."""
    if span.get("start") is None:
        token = span.get("token") or "[missing]"
        k = tokens.index(token) if token in tokens else 0
        return len(text) + k, len(text) + k
    return int(span["start"]), int(span["end"]) - 1


def rule_holds(rule: dict, model: str, answers: dict[str, dict], texts: dict[str, str], tokens: list[str]) -> bool:
    """True when the answer of ``model`` meets its rule (``answers``: model → {score, spans})."""
    mine = answers.get(model)
    if mine is None or mine.get("score") is None:
        return False
    score = float(mine["score"])
    if "score" in rule:
        low, high = rule["score"]
        if not low <= score <= high:
            return False
    for expected in rule.get("error_spans") or []:
        found = False
        for span in mine.get("spans") or []:
            start, end = pearmut_span(span, texts[model], tokens)
            if "start_i" in expected and not _in(start, expected["start_i"]):
                continue
            if "end_i" in expected and not _in(end, expected["end_i"]):
                continue
            if expected.get("severity") is not None and expected["severity"] != span.get("severity"):
                continue
            found = True
            break
        if not found:
            return False
    other = rule.get("score_greaterthan")
    if other is not None:
        theirs = answers.get(other)
        if theirs is None or theirs.get("score") is None or not score > float(theirs["score"]):
            return False
    return True


def evaluate(rules: dict[str, dict], answers: dict[str, dict], texts: dict[str, str],
             tokens: list[str]) -> dict[str, Any]:
    """One segment's checks: ``{"passed", "loud", "warnings": [(model, text)]}`` (warnings of loud rules that
    failed)."""
    failed = [model for model, rule in rules.items() if not rule_holds(rule, model, answers, texts, tokens)]
    warnings = [(model, str(rules[model]["warning"])) for model in failed if rules[model].get("warning")]
    return {"passed": not failed, "loud": any(r.get("warning") for r in rules.values()), "warnings": warnings}


def verdict(results: list[bool], threshold: float) -> bool:
    """Pass or fail from check outcomes (True: held) and the threshold (count, or share when below 1)."""
    if not results:
        return True
    failed = sum(1 for r in results if not r)
    if isinstance(threshold, float) and not threshold.is_integer():
        return threshold < 1 and failed / len(results) <= threshold
    return failed <= threshold
