"""How annotators arrive: invitation links with a secret token, and one crowd link per campaign.

An invitation link (``BASE/?t=TOKEN``) belongs to one annotator; the token is random
(192 bits) and only its SHA-256 is stored, so the links are shown once, when they are made. Opening
the link again, in another tab or another browser, continues the same annotator's work.

A crowd link (``BASE/?c=KEY``) is published on a crowd platform, which appends the
worker's id: Mechanical Turk's ``workerId`` / ``assignmentId`` / ``hitId``, Prolific's
``PROLIFIC_PID`` / ``STUDY_ID`` / ``SESSION_ID``, or a plain ``worker=``. The worker id names the
annotator (created on first arrival); the platform's assignment (or session) id tells a new
platform task from a reload of a finished one.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Mapping
from urllib.parse import urlencode, urlsplit

from ..errors import InputError
from ..storage import Store
from ..storage.collect import add_invitations, collection

#: query parameter of an invitation token / of a crowd link's campaign key
TOKEN_PARAM, CROWD_PARAM = "t", "c"
#: (parameter, origin) of a crowd worker's id, in the order they are looked for
WORKER_PARAMS: tuple[tuple[str, str], ...] = (("workerId", "mturk"), ("PROLIFIC_PID", "prolific"), ("worker", "worker"))
#: parameters naming one task of a platform (MTurk assignment, Prolific session)
ASSIGNMENT_PARAMS: tuple[str, ...] = ("assignmentId", "SESSION_ID")
#: what MTurk sends while a worker only previews a HIT
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MAX_LINKS = 10_000
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")
_WORKER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,99}$")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def valid_token(token: str | None) -> bool:
    """True when ``token`` has the shape of an invitation token (a cheap check before the store is asked)."""
    return bool(token) and bool(_TOKEN.match(token))


def _base(url: str) -> str:
    parts = urlsplit(str(url).strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise InputError(f"the base URL must be an http(s) address without query or fragment, got {url!r}",
                         column="base-url")
    return str(url).strip().rstrip("/")


def invitation_links(store: Store, campaign: str, lp: str, n: int, base_url: str,
                     hits_per_annotator: int | None = None) -> list[dict[str, str]]:
    """``n`` new annotators with their links ``[{annotator, url}]`` (the tokens are not kept: show them now).

    ``hits_per_annotator``: a quota per link; a link is used up once its annotator has done that many
    HITs (None: as many as are free for them).
    """
    base = _base(base_url)
    if not 1 <= n <= MAX_LINKS:
        raise InputError(f"the number of annotators must lie between 1 and {MAX_LINKS}, got {n}", column="annotators")
    if hits_per_annotator is not None and hits_per_annotator < 1:
        raise InputError(f"the HITs per annotator must be at least 1, got {hits_per_annotator}",
                         column="hits-per-annotator", code="too_few_hits_per_annotator", value=hits_per_annotator)
    info = collection(store, campaign, lp)
    tokens = [secrets.token_urlsafe(24) for _ in range(n)]
    names = add_invitations(store, info["id"], [token_hash(t) for t in tokens], hits_per_annotator)
    return [{"annotator": name, "url": f"{base}/?{urlencode({TOKEN_PARAM: t})}"} for name, t in zip(names, tokens)]


def crowd_link(store: Store, campaign: str, lp: str, base_url: str) -> dict[str, str]:
    """The campaign's crowd link (the platform adds the worker's id to it)."""
    info = collection(store, campaign, lp)
    return {"annotator": "crowd", "url": f"{_base(base_url)}/?{urlencode({CROWD_PARAM: info['crowd_key']})}"}


def crowd_preview(params: Mapping[str, str]) -> bool:
    """True for a link opened without a worker id, or in Mechanical Turk's preview (no assignment accepted)."""
    if not any(params.get(p) for p, _ in WORKER_PARAMS):
        return True
    return any(str(params.get(p) or "").strip() == MTURK_PREVIEW for p in ASSIGNMENT_PARAMS)


def crowd_identity(params: Mapping[str, str]) -> tuple[str, str, str | None]:
    """(worker id, origin, platform assignment id) from a crowd link's query parameters.

    Refuses a missing or malformed worker id and MTurk's preview (no assignment accepted yet).
    """
    for param, origin in WORKER_PARAMS:
        value = params.get(param)
        if value is None:
            continue
        value = str(value).strip()
        if not _WORKER.match(value):
            raise InputError(f"the worker id in the link ({param}) is not valid: use letters, digits and . _ - : @ +, "
                             "at most 100 characters", column=param)
        assignment = next((str(params[p]).strip() for p in ASSIGNMENT_PARAMS if params.get(p)), None)
        if assignment == MTURK_PREVIEW:
            raise InputError("this is Mechanical Turk's preview: accept the HIT to start", column="assignmentId")
        return value, origin, (assignment[:200] if assignment else None)
    raise InputError("the link has no worker id (workerId, PROLIFIC_PID or worker); open it from the crowd "
                     "platform's task page", column="worker")
