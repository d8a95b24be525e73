"""Simulated annotators for contrastive-ESA campaigns, through the same functions the annotation page calls.

Each simulated annotator gets an invitation link and works page after page
(:func:`leaderboard.collect.cesa.next_page`, :func:`~leaderboard.collect.cesa.save_drafts`,
:func:`~leaderboard.collect.cesa.submit_page`) until nothing is left for them, all at once in threads.
What they see decides what they answer: a translation's perceived quality is its sentence chrF++ (word
bigrams, so words out of order cost) against the other translations of the segment on the page,
stretched around 50; the worker model of :mod:`leaderboard.human.simulate` (good, lenient, harsh,
random) turns it into a score, and consistent workers mark about one error per 25 missing points.
When a loud check refuses a page they read its warning and follow it (as a person would), so the
tutorial and loud attention checks do not stop them; silent checks are only logged.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from ..errors import InputError
from ..human.simulate import respond, worker_parameters
from ..storage import Store
from . import cesa
from .links import TOKEN_PARAM, invitation_links
from .service import open_invitation
from .simulate import BASE_URL, STRETCH, error_spans, kinds_for

MAX_PAGES = 10_000


class _Quality:
    def __init__(self) -> None:
        from sacrebleu.metrics import CHRF
        self.metric = CHRF(word_order=2)

    def __call__(self, text: str, others: list[str]) -> float:
        others = [o for o in others if o.strip()]
        if not others or not text.strip():
            return 50.0 if text.strip() else 0.0
        chrf = float(self.metric.sentence_score(text, others).score)
        return float(np.clip(50 + STRETCH * (chrf - 50), 0, 100))


def _answers(page: cesa.Page, kind: str, params: np.ndarray, seed: tuple, quality: _Quality) -> list[dict]:
    out = []
    for seg in page.segments:
        texts = [t["text"] for t in seg["translations"]]
        for t in seg["translations"]:
            rng = np.random.default_rng([*seed, int(t["item"])])
            q = quality(t["text"], [x for x in texts if x is not t["text"]])
            raw, _ = respond(np.array([q]), np.array([0]), [kind], params[None, :], rng)
            out.append({"item": t["item"], "score": int(round(float(raw[0]))),
                        "spans": error_spans(kind, q, len(t["tokens"]), rng, most=6)})
    return out


def _mid(bound) -> float:
    return (bound[0] + bound[1]) / 2 if isinstance(bound, list) else float(bound)


def _follow(store: Store, page: cesa.Page, answers: list[dict]) -> list[dict]:
    """Answers changed as the refused page's rules ask (a person reading the warnings and fixing the page): a
    score range met at its middle, expected error spans marked, a translation to be scored higher than another
    given that score plus 10 (the other lowered when there is no room)."""
    from ..storage import collect_cesa as cdb
    from ..storage.collect import assignment
    items = {r["id"]: r for r in cdb.page_items(store, int(assignment(store, page.assignment_id)["hit_id"]))}
    scores = {a["item"]: a for a in answers}
    for seg in page.segments:
        rules = items[seg["translations"][0]["item"]]["meta"].get("rules") or {}
        by_model = {items[t["item"]]["system"]: t for t in seg["translations"]}
        for model, rule in rules.items():
            t = by_model[model]
            mine = scores[t["item"]]
            if "score" in rule:
                mine["score"] = int(_mid(rule["score"]))
            spans = []
            for e in rule.get("error_spans") or []:
                a, b = _mid(e.get("start_i", 0)), _mid(e.get("end_i", e.get("start_i", 0)))
                inside = [k for k, (x, y) in enumerate(t["tokens"]) if y > a and x <= b] or [0]
                spans.append({"start": inside[0], "end": inside[-1] + 1, "severity": e.get("severity") or "major"})
            if rule.get("error_spans"):
                mine["spans"] = spans
            other = rule.get("score_greaterthan")
            if other is not None:
                theirs = scores[by_model[other]["item"]]
                if theirs["score"] > 80:
                    theirs["score"] = 40
                mine["score"] = max(mine["score"], min(100, theirs["score"] + 10))
    return answers


def _work(store: Store, person, kind: str, params: np.ndarray, seed: tuple, quality: _Quality) -> dict[str, int]:
    done = {"pages": 0, "judgments": 0, "refused": 0}
    page = cesa.next_page(store, person)
    asked_again = False
    for n in range(MAX_PAGES):
        if page.state == "complete" and person.collect.get("assignment") != "dynamic" and not asked_again:
            page = cesa.next_page(store, person, new_hit=True)  # fixed HITs: the next HIT, as the page's button
            asked_again = page.state != "page"
        if page.state != "page":
            break
        asked_again = False
        answers = _answers(page, kind, params, (*seed, n), quality)
        cesa.save_drafts(store, person, page.assignment_id, answers[:1])
        result = cesa.submit_page(store, person, page.assignment_id, answers)
        tries = 0
        while result.warnings and tries < 3:
            done["refused"] += 1
            answers = _follow(store, result, answers)
            result = cesa.submit_page(store, person, page.assignment_id, answers)
            tries += 1
        if result.warnings:  # could not satisfy the page: stop as a person would
            break
        if page.kind in ("task", "page"):
            done["judgments"] += len(answers)
        done["pages"] += 1
        page = result
    return done


def simulate(store: Store, campaign: str, lp: str, annotators: int, *, random_share: float = 0.0,
             seed: int = 0) -> dict[str, Any]:
    """``annotators`` simulated annotators work on a cESA campaign at once until nothing is left for them.
    Returns ``{pages, judgments, refused, kinds}`` (pages submitted, counted answers stored, pages a loud check
    sent back)."""
    if annotators < 1:
        raise InputError(f"the number of annotators must be at least 1, got {annotators}", column="annotators")
    kinds = kinds_for(annotators, random_share)
    links = invitation_links(store, campaign, lp, annotators, BASE_URL)
    people = [open_invitation(store, parse_qs(urlsplit(link["url"]).query)[TOKEN_PARAM][0]) for link in links]
    params = worker_parameters(kinds, np.random.default_rng(seed))
    quality = _Quality()
    with ThreadPoolExecutor(max_workers=annotators) as pool:
        results = list(pool.map(lambda k: _work(store, people[k], kinds[k], params[k], (seed, k), quality),
                                range(annotators)))
    total = {key: sum(r[key] for r in results) for key in ("pages", "judgments", "refused")}
    return {**total, "kinds": {p.name: kind for p, kind in zip(people, kinds)}}
