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
                     assessment: str | None = None, note: str = "", **options: Any) -> list[dict]:
    """Rank the stored judgments of ``campaign`` and publish each ranking as a new version.

    ``qc="auto"`` means what it means in ``mtlb rank``: ``release`` when every judgment file of the
    campaign is a WMT release, else the QC module's default method. Returns one
    ``{"lp", "assessment", "version", "signature", "data_hash"}`` per snapshot.
    """
    frame = store.judgments(campaign, lp, assessment)
    if frame.empty:
        raise InputError(f"no stored judgments for campaign {campaign!r}"
                         + (f", lp {lp}" if lp else "") + (f", assessment {assessment}" if assessment else ""))
    if "qc" in options:
        from .ranking import resolve_qc
        imports = store.imports(campaign)
        options["qc"] = resolve_qc(options["qc"], imports.loc[imports["kind"] == "judgments", "input_format"])
    published = []
    for ranking in rank(frame, **options):
        lp_, assessment_ = ranking["lp"], ranking["assessment"]
        data_hash = frame_hash(frame[(frame["lp"] == lp_) & (frame["assessment"] == assessment_)])
        version = store.publish(campaign, lp_, assessment_, ranking, data_hash=data_hash, publisher=publisher,
                                note=note)
        published.append({"lp": lp_, "assessment": assessment_, "version": version,
                          "signature": ranking.get("signature"), "data_hash": data_hash})
    return published


def ranking_table(ranking: dict) -> pd.DataFrame:
    """The published table as a frame: rank range, system, Ave, Ave z, N, N.ALL, cluster."""
    rows = []
    for s in ranking["systems"]:
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        rows.append({"rank": f"{lo}" if lo == hi else f"{lo}-{hi}", "system": s["system"], "ave": s.get("ave"),
                     "ave_z": s.get("ave_z"), "n": s.get("n"), "n_all": s.get("n_all"),
                     "cluster": s.get("cluster"), "wins": s.get("wins")})
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
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{rrrl}", r"\toprule",
             r"Rank & Ave. & Ave.\ $z$ & System \\", r"\midrule"]
    previous = None
    for s in ranking["systems"]:
        if previous is not None and s.get("cluster") != previous:
            lines.append(r"\midrule")
        previous = s.get("cluster")
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        rank_text = f"{lo}" if lo == hi else f"{lo}--{hi}"
        ave = "" if s.get("ave") is None else f"{s['ave']:.1f}"
        lines.append(f"{rank_text} & {ave} & {s['ave_z']:.3f} & {latex_escape(s['system'])} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{caption}}}"]
    if label or lp:
        lines.append(f"\\label{{{label or 'tab:da-' + re.sub(r'[^A-Za-z0-9-]', '', lp)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
