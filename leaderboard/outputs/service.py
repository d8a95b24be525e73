"""The operations of the submissions stage, shared by the command line and the web app.

Each function validates everything before it writes, and writes in one transaction
(:class:`leaderboard.storage.outputs.OutputStore`); refusals are :class:`InputError` naming the
file and line.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import InputError
from ..storage.outputs import OutputStore
from ..storage.store import Store
from ..languages import bleu_tokeniser, split_lp
from ..naming import check_name
from .reading import check_line_count, check_output, check_system_name, read_lines

DEFAULT_LIMIT = 20


def safe_name(text: str) -> str:
    """A file-name part: characters other than letters, digits, ``.``, ``_``, ``-`` become ``_``."""
    import re
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("._") or "_"


def parse_time(text: str | None, what: str = "time") -> datetime | None:
    """An ISO 8601 date or date-time; a time without a zone is UTC."""
    if text is None or str(text).strip() == "":
        return None
    try:
        value = datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{what} {text!r} is not an ISO 8601 date or time (e.g. 2022-07-01T12:00:00Z)",
                         column=what) from None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _wmt_parts(path: str | os.PathLike) -> list[str]:
    base = Path(path).name
    return (base[:-3] if base.endswith(".gz") else base).split(".")


def testset_name(source_path: str | os.PathLike, campaign: str) -> str:
    """``generaltest2022.cs-en.src.cs`` → ``generaltest2022``; other names → the campaign's name."""
    parts = _wmt_parts(source_path)
    return parts[0] if len(parts) >= 4 and parts[2] == "src" else campaign


def reference_labels(paths: Sequence[str | os.PathLike]) -> list[str]:
    """Labels of reference files (``...ref.B.en`` → ``B``, else the file stem), made unique."""
    from metrics.textfiles import reference_name
    labels: list[str] = []
    for path in paths:
        label = reference_name(path)
        base, k = label, 2
        while label in labels:
            label, k = f"{base}-{k}", k + 1
        labels.append(label)
    return labels


def default_system_name(path: str | os.PathLike, team: str) -> str:
    """The ``<system>`` of a WMT file name ``<testset>.<lp>.hyp.<system>.<lang>``, else the team's name."""
    parts = _wmt_parts(path)
    if len(parts) >= 5 and parts[2] == "hyp":
        return ".".join(parts[3:-1])
    return team


# ---- test sets ----------------------------------------------------------------------------------
def add_testset(store: Store, campaign: str, lp: str, source: str | os.PathLike,
                references: Sequence[str | os.PathLike] = (), *, docs: str | os.PathLike | None = None,
                starts_at: datetime | None = None, deadline: datetime | None = None,
                public_before_deadline: bool = True, max_submissions: int = DEFAULT_LIMIT,
                name: str | None = None, labels: Mapping[str, str] | None = None,
                created_by: str | None = None, bleu_tokenize: str | None = None) -> dict:
    """Read, check and store a test set; returns what was stored.

    ``labels`` maps a path (as given) to the name shown for it (uploads keep their own names).
    ``bleu_tokenize``: sacrebleu's BLEU tokeniser for every score of the test set (None: the
    target language's, :func:`leaderboard.languages.bleu_tokeniser`).
    """
    split_lp(lp)
    if bleu_tokenize is not None:
        from metrics.scoring import check_bleu_tokeniser
        check_bleu_tokeniser(bleu_tokenize)
    if not campaign.strip():
        raise InputError("campaign name is empty", column="campaign")
    check_name(campaign, "campaign name", column="campaign")
    if max_submissions < 1:
        raise InputError(f"the submission limit must be at least 1, got {max_submissions}")
    if starts_at and deadline and deadline <= starts_at:
        raise InputError("the deadline must come after the start")
    labels = dict(labels or {})
    label = lambda p: labels.get(str(p), str(p))  # noqa: E731
    src_lines = read_lines(source, label(source))
    refs: dict[str, list[str]] = {}
    for ref_label, path in zip(reference_labels(list(references)), references):
        lines = read_lines(path, label(path))
        check_line_count(lines, len(src_lines), label(path))
        refs[ref_label] = lines
    doc_ids = None
    if docs is not None:
        doc_ids = read_lines(docs, label(docs))
        check_line_count(doc_ids, len(src_lines), label(docs))
    ts_name = name or testset_name(labels.get(str(source), source), campaign)
    tid = OutputStore(store).add_testset(
        campaign, lp, name=ts_name, source=src_lines, references=refs, docs=doc_ids, starts_at=starts_at,
        deadline=deadline, public_before_deadline=public_before_deadline, max_submissions=max_submissions,
        created_by=created_by, bleu_tokenize=bleu_tokenize)
    return {"id": tid, "campaign": campaign, "lp": lp, "testset": ts_name, "segments": len(src_lines),
            "references": list(refs), "documents": len(set(doc_ids)) if doc_ids else None,
            "starts": iso(starts_at), "deadline": iso(deadline), "public_before_deadline": public_before_deadline,
            "max_submissions": max_submissions, "bleu_tokenize": bleu_tokenize or bleu_tokeniser(split_lp(lp)[1])}


def testset_json(ts: Mapping) -> dict:
    """A stored test set in JSON form."""
    return {"id": ts["id"], "campaign": ts["campaign"], "lp": ts["lp"], "testset": ts["name"],
            "segments": ts["segments"], "references": list(ts.get("references", [])), "starts": iso(ts["starts_at"]),
            "deadline": iso(ts["deadline"]), "public_before_deadline": ts["public_before_deadline"],
            "max_submissions": ts["max_submissions"],
            "bleu_tokenize": ts.get("bleu_tokenize") or bleu_tokeniser(split_lp(ts["lp"])[1])}


def add_references(store: Store, campaign: str, lp: str, references: Sequence[str | os.PathLike], *,
                   labels: Mapping[str, str] | None = None, progress=None) -> dict:
    """Add references to a test set (e.g. released after the deadline) and rescore every submission."""
    out = OutputStore(store)
    ts = out.testset(campaign, lp)
    source, old_refs, _ = out.testset_texts(ts["id"])
    labels = dict(labels or {})
    new: dict[str, list[str]] = {}
    for ref_label, path in zip(reference_labels(list(references)), references):
        shown = labels.get(str(path), str(path))
        lines = read_lines(path, shown)
        check_line_count(lines, len(source), shown)
        while ref_label in old_refs or ref_label in new:
            ref_label += "+"
        new[ref_label] = lines
    all_refs = {**old_refs, **new}
    subs = out.submissions(campaign, lp)
    rescored = {}
    for i, sid in enumerate(subs["id"]):
        rescored[int(sid)] = _scored(out.submission_lines(int(sid)), all_refs, lp,
                                     bleu_tokenize=ts.get("bleu_tokenize"))
        if progress:
            progress(i + 1, len(subs))
    out.add_references(ts["id"], new, rescored)
    return {"campaign": campaign, "lp": lp, "added": list(new), "references": list(all_refs),
            "rescored": len(rescored)}


def set_bleu_tokenize(store: Store, campaign: str, lp: str, bleu_tokenize: str | None, *, progress=None,
                      **values) -> dict:
    """Set a test set's BLEU tokeniser (None: back to the target language's) and rescore every submission
    with it, in one transaction with any other change of ``values`` (start, deadline…); TER is kept for
    submissions that had it."""
    out = OutputStore(store)
    ts = out.testset(campaign, lp)
    if bleu_tokenize is not None:
        from metrics.scoring import check_bleu_tokeniser
        check_bleu_tokeniser(bleu_tokenize)
    _, refs, _ = out.testset_texts(ts["id"])
    subs = out.submissions(campaign, lp)
    rescored = {}
    for i, (sid, scores) in enumerate(zip(subs["id"], subs["scores"])):
        rescored[int(sid)] = _scored(out.submission_lines(int(sid)), refs, lp, ter="ter" in scores,
                                     bleu_tokenize=bleu_tokenize)
        if progress:
            progress(i + 1, len(subs))
    out.set_bleu_tokenize(ts["id"], bleu_tokenize, {k: v for k, v in rescored.items() if v}, **values)
    return {**testset_json(out.testset(campaign, lp)), "rescored": len([v for v in rescored.values() if v])}


def _scored(lines: Sequence[str], refs: Mapping[str, Sequence[str]], lp: str, ter: bool = False,
            bleu_tokenize: str | None = None) -> dict:
    from .scoring import pack_stats, score_output
    if not refs:
        return {}
    res = score_output(lines, refs, lp, ter=ter, bleu_tokenize=bleu_tokenize)
    return {"scores": res.scores, "signatures": res.signatures, "stats": pack_stats(res.stats)}


# ---- teams --------------------------------------------------------------------------------------
def add_team(store: Store, name: str, *, verified: bool = False, contact: str = "", institution: str = "",
             description: str = "", verified_by: str | None = None, token: bool = False,
             exist_ok: bool = False) -> dict:
    """Create a team; with ``token`` also issue its sign-in token (returned once, only its hash is kept).

    A name that is taken is refused, except with ``exist_ok`` (the organisers' command line, so a
    setup script can run twice): then an existing team changes nothing but its verification
    (``verified`` verifies it) and the result says ``"created": false``.
    """
    from ..accounts.auth import issue_upload_token
    check_name(name, "team name", column="name")  # before any query: PostgreSQL refuses NUL even in a lookup
    out = OutputStore(store)
    existing = out.team(name) if exist_ok else None
    if existing is None:
        out.add_team(name, contact=contact, institution=institution, description=description, verified=verified,
                     verified_by=verified_by)
    elif verified and not existing["verified"]:
        out.set_verified(name, True, verified_by)
    result = {**team_json(out.team(name)), "created": existing is None}
    if token:
        result["token"] = issue_upload_token(store, name, "team sign-in")
    return result


def team_json(team: dict) -> dict:
    return {"name": team["name"], "verified": team["verified"], "contact": team["contact"],
            "institution": team["institution"], "description": team["description"],
            "verified_by": team["verified_by"], "verified_at": iso(team["verified_at"]),
            "created_at": iso(team["created_at"])}


# ---- submissions --------------------------------------------------------------------------------
def submit(store: Store, path: str | os.PathLike, *, campaign: str, lp: str, team: str,
           system: str | None = None, label: str | None = None, ter: bool = False, primary: bool = False,
           constrained: bool | None = None, open_source: bool | None = None, created_by: str | None = None,
           now: datetime | None = None) -> dict:
    """Validate, score and store one system output; returns the stored submission with its scores.

    Refused (nothing stored): unknown test set or team, an unverified team, before the start or
    after the deadline, the team's limit reached, an unreadable / empty / non-UTF-8 file, a wrong
    number of lines, an output identical to the source or a reference, a system name used by
    another team.
    """
    label = label or str(path)
    out = OutputStore(store)
    ts = out.testset(campaign, lp)
    found = out.team(team)
    if found is None:
        raise InputError(f"no team named {team!r} (sign up in the app, or mtlb team add)", file=label)
    if not found["verified"]:
        raise InputError(f"team {team!r} is not verified yet; an organiser must verify it before it can submit",
                         file=label)
    now = now or datetime.now(timezone.utc)
    if ts["starts_at"] and now < ts["starts_at"]:
        raise InputError(f"submissions open at {iso(ts['starts_at'])}", file=label)
    if ts["deadline"] and now > ts["deadline"]:
        raise InputError(f"the deadline ({iso(ts['deadline'])}) has passed; nothing was stored", file=label)
    count = out.count_submissions(ts["id"], found["id"])
    if count >= ts["max_submissions"]:
        raise InputError(f"team {team!r} already has {count} submissions for {campaign} {lp}; the limit is "
                         f"{ts['max_submissions']}", file=label)
    system = check_system_name(system if system is not None else default_system_name(label, team), label)
    lines = read_lines(path, label)
    source, refs, _ = out.testset_texts(ts["id"])
    flags = check_output(lines, source, refs, label)
    from ..ingest.textio import max_text_bytes, read_bytes
    sha = hashlib.sha256(read_bytes(path, label, cap=(max_text_bytes(), "MTLB_MAX_TEXT_BYTES"))).hexdigest()
    scored = _scored(lines, refs, lp, ter=ter, bleu_tokenize=ts.get("bleu_tokenize"))
    sid = out.add_submission(ts["id"], found["id"], system=system, file_name=Path(label).name, sha256=sha,
                             lines=lines, scored=scored, flags=flags, limit=ts["max_submissions"],
                             created_by=created_by or team, constrained=constrained, open_source=open_source,
                             primary=primary)
    return submission_json(out.submission(sid), valid=True)


def submission_json(sub: Mapping, valid: bool | None = None) -> dict:
    """The public form of a stored submission (the ``mtlb outputs submit --json`` contract)."""
    out = {"id": int(sub["id"]), "team": sub["team"], "system": sub["system"]}
    if valid is not None:
        out["valid"] = valid
    out.update({"scores": dict(sub["scores"]), "signatures": dict(sub["signatures"]),
                "campaign": sub["campaign"], "lp": sub["lp"], "primary": bool(sub["primary"]),
                "withdrawn": bool(sub["withdrawn"]), "constrained": sub.get("constrained"),
                "open_source": sub.get("open_source"), "flags": dict(sub["flags"]),
                "file": sub["file_name"], "sha256": sub["sha256"], "created_at": iso(sub["created_at"])})
    return out


def owned(store: Store, submission_id: int, team: str | None) -> dict:
    """The submission, checking that ``team`` (when given) owns it."""
    sub = OutputStore(store).submission(int(submission_id))
    if team is not None and sub["team"] != team:
        raise InputError(f"submission #{submission_id} belongs to another team", code="not_owner", column="team",
                         value=team)
    return sub


# ---- the automatic leaderboard ------------------------------------------------------------------
def leaderboard_hidden(ts: Mapping, now: datetime | None = None) -> bool:
    """True while participants must not see the leaderboard (hidden until the deadline)."""
    now = now or datetime.now(timezone.utc)
    return not ts["public_before_deadline"] and ts["deadline"] is not None and now < ts["deadline"]


def leaderboard(store: Store, campaign: str, lp: str, *, n_samples: int = 1000, seed: int = 12345,
                alpha: float = 0.05, now: datetime | None = None) -> dict:
    """The automatic leaderboard of (campaign, lp): ``{"lp", "systems": [...], ...}`` sorted by chrF."""
    from .board import board_signature, build_board, pick_entries
    from .scoring import unpack_stats
    out = OutputStore(store)
    ts = out.testset(campaign, lp)
    entries = pick_entries(out.submissions(campaign, lp, include_withdrawn=False))
    packed = out.submission_stats(list(entries["id"])) if len(entries) else {}
    stats = {sid: unpack_stats(data) for sid, data in packed.items() if data}
    board = build_board(entries, stats, n_samples=n_samples, seed=seed, alpha=alpha)
    signatures = {}
    if len(entries):
        first = entries.iloc[0]["signatures"]
        signatures = {k: first[k] for k in ("bleu", "chrf") if k in first}
    from .scoring import effective_tokeniser
    return {"campaign": campaign, "lp": lp, "testset": ts["name"], "references": ts["references"],
            "bleu_tokenize": effective_tokeniser(lp, ts.get("bleu_tokenize")),
            "deadline": iso(ts["deadline"]), "hidden": leaderboard_hidden(ts, now),
            "signature": board_signature(board, signatures), "signatures": signatures, **board}


# ---- export and the lifecycle -------------------------------------------------------------------
def export_zip(store: Store, campaign: str) -> bytes:
    """Every test set and submission of a campaign as a zip: sources, references, outputs, manifest.

    Layout: ``<testset>/sources/<testset>.<lp>.src.<src>``, ``references/...ref.<label>.<tgt>``,
    ``system-outputs/<lp>/<testset>.<lp>.hyp.<system>.<tgt>`` for primaries and
    ``submissions/<lp>/<id>.<team>.<system>.<tgt>`` for every submission, ``submissions.csv``.
    """
    import json

    from ..tables import to_csv_bytes
    out = OutputStore(store)
    sets = out.testsets(campaign)
    if sets.empty:
        raise InputError(f"campaign {campaign!r} has no test sets")
    subs = out.submissions(campaign)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for ts in sets.itertuples():
            src, tgt = split_lp(ts.lp)
            name = safe_name(ts.name)
            source, refs, _ = out.testset_texts(int(ts.id))
            zf.writestr(f"{name}/sources/{name}.{ts.lp}.src.{src}", "\n".join(source) + "\n")
            for label, lines in refs.items():
                zf.writestr(f"{name}/references/{name}.{ts.lp}.ref.{safe_name(label)}.{tgt}", "\n".join(lines) + "\n")
            for sub in subs[subs["testset_id"] == ts.id].itertuples():
                body = "\n".join(out.submission_lines(int(sub.id))) + "\n"
                zf.writestr(f"{name}/submissions/{ts.lp}/{int(sub.id)}.{safe_name(sub.team)}.{safe_name(sub.system)}"
                            f".{tgt}", body)
                if sub.primary and not sub.withdrawn:
                    zf.writestr(f"{name}/system-outputs/{ts.lp}/{name}.{ts.lp}.hyp.{safe_name(sub.system)}.{tgt}",
                                body)
        manifest = subs.drop(columns=["signatures", "flags", "scores", "testset_id"]).assign(
            scores=[json.dumps(s, sort_keys=True) for s in subs["scores"]],
            flags=[json.dumps(f, sort_keys=True) for f in subs["flags"]],
            created_at=[iso(t) for t in subs["created_at"]])
        zf.writestr("submissions.csv", to_csv_bytes(manifest))
    return buf.getvalue()


def primary_sources(store: Store, campaign: str, lp: str, reference: str | None = None):
    """The primary submissions of (campaign, lp) and one reference as HIT-builder input."""
    from ..hits.builder import Sources
    out = OutputStore(store)
    ts = out.testset(campaign, lp)
    _, refs, _ = out.testset_texts(ts["id"])
    if not refs:
        raise InputError(f"the {campaign} {lp} test set has no reference yet (mtlb testset refs)")
    if reference is not None and reference not in refs:
        raise InputError(f"the test set has no reference {reference!r} ({', '.join(refs)})", column="reference")
    systems = out.primary_outputs(campaign, lp)
    if not systems:
        raise InputError(f"no primary submissions for {campaign} {lp}: teams (or organisers) mark one with "
                         "mtlb outputs primary ID")
    ref_name = reference or sorted(refs)[0]
    return Sources(lp=lp, reference=refs[ref_name], systems=systems,
                   files={s: f"primary submission of {s}" for s in systems})
