"""Simulated annotators: the product's simulated crowd workers answering a campaign through the service.

Each simulated annotator gets an invitation link (:func:`leaderboard.collect.links.invitation_links`)
and works exactly as the web page does: :func:`~leaderboard.collect.service.open_invitation`, then
:func:`~leaderboard.collect.service.start` and :func:`~leaderboard.collect.service.submit_answer`
item by item, HIT after HIT, until no HIT is left for them; all annotators answer at once, in
threads, so a demo or a load test needs no people. The same seed gives the same answers.

What an annotator sees decides what they answer: the true quality of a shown translation comes from
its sentence chrF (sacrebleu's defaults) against the segment's reference, stretched around 50 by
:data:`STRETCH` and clipped to 0–100, so a degraded copy scores lower than its original (by about
20 points on WMT22 outputs, the margin of the crowd model of :mod:`leaderboard.human.simulate`;
plain chrF loses about 10), the reference itself 100, and better systems higher. Workers answer it with the
model of :mod:`leaderboard.human.simulate` (good, lenient, harsh: consistent, with their own scale,
bias and noise; random: uniform whole numbers). For ESA they also mark spans: a consistent worker
about one span per 25 points of missing quality (major below 50), a random clicker about one at
random.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from ..errors import InputError
from ..human.simulate import respond, worker_parameters
from ..storage import Store
from .links import TOKEN_PARAM, invitation_links
from .service import Annotator, Task, open_invitation, start, submit_answer
from .spans import tokens

#: how the consistent (non-random) simulated annotators are mixed, in turn
CONSISTENT_KINDS: tuple[str, ...] = ("good", "good", "lenient", "good", "harsh")
BASE_URL = "http://simulated.invalid"
#: perceived quality = clip(50 + STRETCH * (chrF - 50), 0, 100)
STRETCH = 1.8


def kinds_for(n: int, random_share: float) -> list[str]:
    """The kinds of ``n`` simulated annotators: round(share × n) random clickers first, then the others."""
    if not 0 <= random_share <= 1:
        raise InputError(f"the share of random annotators must lie between 0 and 1, got {random_share}",
                         column="random-share", code="bad_random_share", value=random_share)
    n_random = int(round(random_share * n))
    return ["random"] * n_random + [CONSISTENT_KINDS[k % len(CONSISTENT_KINDS)] for k in range(n - n_random)]


class _Quality:
    """Perceived quality of a shown text (stretched sentence chrF against its reference), once per text."""

    def __init__(self) -> None:
        from metrics.scoring import make_metric
        self.metric = make_metric("chrf")
        self.cache: dict[tuple[str, str], float] = {}
        self.lock = threading.Lock()

    def __call__(self, text: str, reference: str) -> float:
        key = (text, reference)
        with self.lock:
            if key not in self.cache:
                chrf = float(self.metric.sentence_score(text, [reference]).score) if reference else 50.0
                self.cache[key] = float(np.clip(50 + STRETCH * (chrf - 50), 0, 100))
            return self.cache[key]


def error_spans(kind: str, quality: float, n_tokens: int, rng: np.random.Generator,
                most: int | None = None) -> list[dict]:
    """A simulated annotator's error spans (token ``start``, ``end``, ``severity``) of an output of
    ``n_tokens`` tokens: more, and more major, the lower ``quality``; at most ``most``."""
    if n_tokens == 0:
        return []
    count = int(rng.poisson(1.0 if kind == "random" else max(0.0, 100 - quality) / 25))
    out = []
    for _ in range(min(count, n_tokens, n_tokens if most is None else most)):
        start = int(rng.integers(0, n_tokens))
        end = min(n_tokens, start + 1 + int(rng.integers(0, 3)))
        major = rng.random() < 0.5 if kind == "random" else quality < 50
        out.append({"start": start, "end": end, "severity": "major" if major else "minor"})
    return out


def _answer_hit(store: Store, annotator: Annotator, task: Task, kind: str, params: np.ndarray, seed: tuple[int, int],
                quality: _Quality) -> int:
    """Answer the items of one HIT, item by item; returns the judgments stored (tutorial items do not count).

    Each answer is drawn from a generator seeded by (seed, annotator, item), so what an annotator
    answers does not depend on how the threads interleave.
    """
    lang = annotator.languages[1]
    stored = 0
    while task.state == "item" and task.index is not None:
        item = task.current
        rng = np.random.default_rng([*seed, int(item["id"])])
        q = quality(item["text"], item["reference"])
        raw, seconds = respond(np.array([q]), np.array([0]), [kind], params[None, :], rng)
        spans = error_spans(kind, q, len(tokens(item["text"], lang)), rng) if annotator.protocol == "esa" else None
        now = datetime.now(timezone.utc)
        counted = not task.tutorial
        task = submit_answer(store, annotator, int(item["id"]), float(raw[0]), spans,
                             started_at=now - timedelta(seconds=float(seconds[0])), ended_at=now)
        stored += int(counted and bool(task.stored))
    return stored


def simulate(store: Store, campaign: str, lp: str, annotators: int, *, random_share: float = 0.0,
             seed: int = 0) -> dict[str, Any]:
    """``annotators`` simulated annotators work on (campaign, lp) until no HIT is left for them.

    In rounds: each annotator in turn asks for a HIT (so who gets which HIT does not depend on
    timing), then all of them answer their HITs at once, in threads. Returns ``{hits_done,
    judgments}`` (what they completed and stored) and ``kinds`` (each annotator's name and kind).
    """
    if annotators < 1:
        raise InputError(f"the number of annotators must be at least 1, got {annotators}", column="annotators",
                         code="too_few_annotators", value=annotators)
    kinds = kinds_for(annotators, random_share)
    links = invitation_links(store, campaign, lp, annotators, BASE_URL)
    people = [open_invitation(store, parse_qs(urlsplit(link["url"]).query)[TOKEN_PARAM][0]) for link in links]
    params = worker_parameters(kinds, np.random.default_rng(seed))
    quality = _Quality()
    result = {"hits_done": 0, "judgments": 0}
    started = [False] * annotators
    with ThreadPoolExecutor(max_workers=annotators) as pool:
        while True:
            tasks = []
            for k, person in enumerate(people):
                task = start(store, person, new_hit=started[k])
                started[k] = True
                if task.state == "item":
                    tasks.append((k, task))
            if not tasks:
                break
            stored = pool.map(lambda kt: _answer_hit(store, people[kt[0]], kt[1], kinds[kt[0]], params[kt[0]],
                                                     (seed, kt[0]), quality), tasks)
            result["judgments"] += sum(stored)
            result["hits_done"] += len(tasks)
    return {**result, "kinds": {p.name: kind for p, kind in zip(people, kinds)}}
