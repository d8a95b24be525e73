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

    Human translations: the organisers' marks (:mod:`leaderboard.storage.marks`), else WMT naming.
    ``qc="auto"`` means what it means in ``mtlb rank``: ``release`` when every judgment file of the
    campaign is a WMT release, else the QC module's default method. Returns one
    ``{"lp", "assessment", "version", "signature", "data_hash"}`` per snapshot.
    """
    from .storage.marks import human_marks
    options.setdefault("human_systems", human_marks(store, campaign))
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
    for ranking in (rank(frame, **options) if frame is not None and not frame.empty else []):
        lp_, assessment_ = ranking["lp"], ranking["assessment"]
        data_hash = frame_hash(frame[(frame["lp"] == lp_) & (frame["assessment"] == assessment_)])
        version = store.publish(campaign, lp_, assessment_, ranking, data_hash=data_hash, publisher=publisher,
                                note=note)
        published.append({"lp": lp_, "assessment": assessment_, "version": version,
                          "signature": ranking.get("signature"), "data_hash": data_hash})
    return published


def publish_mqm(store: Store, campaign: str, publisher: str, *, lp: str | None = None, note: str = "",
                **options: Any) -> list[dict]:
    """Publish the MQM ranking of every language pair with stored MQM annotations (none: [])."""
    from .expert.ranking import rank_mqm
    from .storage.expert import errors_hash, mqm_errors
    errors = mqm_errors(store, campaign, lp)
    if errors.empty:
        return []
    keep = {k: options[k] for k in ("alpha", "cluster_rule", "human_systems", "n_resamples", "seed") if k in options}
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


def _ci(s: dict, key: str) -> tuple[float | None, float | None]:
    ci = s.get(f"{key}_ci")
    return (ci[0], ci[1]) if ci else (None, None)


def is_human_entry(s: dict) -> bool:
    """A ranking entry's human-translation mark; snapshots published before the mark existed: WMT naming."""
    from .naming import is_human
    return bool(s["human"]) if s.get("human") is not None else is_human(s["system"])


def ranking_table(ranking: dict) -> pd.DataFrame:
    """The published table as a frame: rank range, system, human, Ave, Ave z (MQM) with their 95% interval
    bounds (``<score>_lo`` / ``<score>_hi``, empty when the snapshot has none), N, N.ALL, cluster, wins."""
    rows = []
    for s in ranking["systems"]:
        lo, hi = s.get("rank_lo"), s.get("rank_hi")
        row = {"rank": f"{lo}" if lo == hi else f"{lo}-{hi}", "system": s["system"], "human": is_human_entry(s)}
        keys = ("mqm",) if "mqm" in s else ("ave", "ave_z")  # an MQM ranking: lower is better, no DA columns
        for key in keys:
            row[key] = s.get(key)
            row[f"{key}_lo"], row[f"{key}_hi"] = _ci(s, key)
        row.update(n=s.get("n"), n_all=s.get("n_all"), cluster=s.get("cluster"), wins=s.get("wins"))
        rows.append(row)
    return pd.DataFrame(rows)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return re.sub(r"[\\&%$#_{}~^]", lambda m: _LATEX_SPECIAL[m.group(0)], str(text))


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
