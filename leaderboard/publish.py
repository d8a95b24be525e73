"""Publishing rankings as immutable snapshots, and rendering them for papers and downloads."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from .errors import InputError
from .storage.store import Store, frame_hash


def rank(frame: pd.DataFrame, **options: Any) -> list[dict]:
    """The rankings of every (lp, assessment) in ``frame`` (see :mod:`leaderboard.ranking`)."""
    from .ranking import rank_judgments
    return rank_judgments(frame, **options)


def publish_rankings(store: Store, campaign: str, publisher: str, *, lp: str | None = None,
                     assessment: str | None = None, note: str = "", extra_artifacts: dict | None = None,
                     **options: Any) -> list[dict]:
    """Rank the stored judgments of ``campaign`` and publish each ranking as a new version.

    Each version is stored with its artifacts (:mod:`leaderboard.artifacts`, what its pages show) in
    the same transaction; ``extra_artifacts`` (name → value, or a function of the ranking giving
    the value or None) adds others, e.g. a WMT release's own per-worker QC verdicts.

    ``qc="auto"`` means what it means in ``mtlb rank``: ``release`` when every judgment file of the
    campaign is a WMT release, else the QC module's default method. Returns one
    ``{"lp", "assessment", "version", "signature", "data_hash"}`` per snapshot.
    """
    frame = store.judgments(campaign, lp, assessment) if assessment != "mqm" else None
    published = publish_mqm(store, campaign, publisher, lp=lp, note=note, **options) \
        if assessment in (None, "mqm") else []
    if (frame is None or frame.empty) and not published:
        raise InputError(f"no stored judgments for campaign {campaign!r}"
                         + (f", lp {lp}" if lp else "") + (f", assessment {assessment}" if assessment else ""))
    if "qc" in options:
        from .ranking import resolve_qc
        imports = store.imports(campaign)
        options["qc"] = resolve_qc(options["qc"], imports.loc[imports["kind"] == "judgments", "input_format"])
    cache: dict = {}  # worker QC verdicts pool language pairs: computed once for all rankings
    for ranking in (rank(frame, **options) if frame is not None and not frame.empty else []):
        lp_, assessment_ = ranking["lp"], ranking["assessment"]
        data_hash = frame_hash(frame[(frame["lp"] == lp_) & (frame["assessment"] == assessment_)])
        version = store.publish(campaign, lp_, assessment_, ranking, data_hash=data_hash, publisher=publisher,
                                note=note, artifacts=snapshot_artifacts(store, campaign, ranking, frame,
                                                                        extra_artifacts, cache))
        published.append({"lp": lp_, "assessment": assessment_, "version": version,
                          "signature": ranking.get("signature"), "data_hash": data_hash})
    return published


def snapshot_artifacts(store: Store, campaign: str, ranking: dict, frame: pd.DataFrame,
                       extra: dict | None = None, cache: dict | None = None) -> dict:
    """What the pages of this ranking will show, computed now so that they open at once
    (:mod:`leaderboard.artifacts`): per-segment scores, the QC behind it, BLEU/chrF baselines and
    their correlations. ``frame``: the judgments the ranking was computed from."""
    from .artifacts import compute_artifacts
    part = frame[frame["assessment"].astype(str) == str(ranking["assessment"])]
    out = compute_artifacts(ranking, part, store.texts(campaign, str(ranking["lp"])), cache)
    for name, value in (extra or {}).items():
        value = value(ranking) if callable(value) else value
        if value is not None:
            out[name] = value
    return out


def publish_mqm(store: Store, campaign: str, publisher: str, *, lp: str | None = None, note: str = "",
                **options: Any) -> list[dict]:
    """Publish the MQM ranking of every language pair with stored MQM annotations (none: [])."""
    from .expert.ranking import rank_mqm
    from .storage.expert import errors_hash, mqm_errors
    errors = mqm_errors(store, campaign, lp)
    if errors.empty:
        return []
    keep = {k: options[k] for k in ("alpha", "cluster_rule") if k in options}
    if options.get("exclude_systems"):
        import fnmatch
        names = errors["system"].astype(str)
        errors = errors[~names.map(lambda s: any(fnmatch.fnmatchcase(s, p) for p in options["exclude_systems"]))]
    published = []
    for ranking in rank_mqm(errors, **keep):
        data_hash = errors_hash(errors[errors["lp"] == ranking["lp"]])
        version = store.publish(campaign, ranking["lp"], "mqm", ranking, data_hash=data_hash, publisher=publisher,
                                note=note)
        published.append({"lp": ranking["lp"], "assessment": "mqm", "version": version,
                          "signature": ranking["signature"], "data_hash": data_hash})
    return published


def ranking_table(ranking: dict) -> pd.DataFrame:
    """The published table as a frame: rank range, system, Ave, Ave z, N, N.ALL, cluster."""
    rows = []
    for s in ranking["systems"]:
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        row = {"rank": f"{lo}" if lo == hi else f"{lo}-{hi}", "system": s["system"]}
        if "mqm" in s:  # an MQM ranking: lower is better, no DA columns
            row["mqm"] = s["mqm"]
        else:
            row.update(ave=s.get("ave"), ave_z=s.get("ave_z"))
        row.update(n=s.get("n"), n_all=s.get("n_all"), cluster=s.get("cluster"), wins=s.get("wins"))
        rows.append(row)
    return pd.DataFrame(rows)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return re.sub(r"[\\&%$#_{}~^]", lambda m: _LATEX_SPECIAL[m.group(0)], str(text))


def ranking_to_latex(ranking: dict, caption: str | None = None, label: str | None = None) -> str:
    """A WMT-Findings-style LaTeX table: clusters separated by horizontal rules.

    Columns: rank range, Ave. (raw), Ave. z, system; the signature goes into the caption.
    Needs only the ``booktabs`` package.
    """
    lp = ranking.get("lp", "")
    caption = caption or (f"Official results of the {latex_escape(lp)} human evaluation "
                          f"(signature: \\texttt{{{latex_escape(ranking.get('signature', ''))}}}).")
    mqm = bool(ranking.get("systems")) and "mqm" in ranking["systems"][0]
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{rrrl}", r"\toprule",
             (r"Rank & Ave. & MQM & System \\" if mqm else r"Rank & Ave. & Ave.\ $z$ & System \\"), r"\midrule"]
    previous = None
    for s in ranking["systems"]:
        if previous is not None and s.get("cluster") != previous:
            lines.append(r"\midrule")
        previous = s.get("cluster")
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        rank_text = f"{lo}" if lo == hi else f"{lo}--{hi}"
        ave = "" if s.get("ave") is None else f"{s['ave']:.1f}"
        second = f"{s['ave_z']:.3f}" if s.get("ave_z") is not None else \
            (f"{s['mqm']:.2f}" if s.get("mqm") is not None else "")
        lines.append(f"{rank_text} & {ave} & {second} & {latex_escape(s['system'])} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{caption}}}"]
    if label or lp:
        lines.append(f"\\label{{{label or 'tab:da-' + re.sub(r'[^A-Za-z0-9-]', '', lp)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
