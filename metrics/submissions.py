"""Metric submissions: reading the WMT Metrics task formats and validating them against a campaign.

Accepted files (UTF-8, optionally gzip-compressed):

* WMT TSV, no header, tab-separated (whitespace when the first line has no tab):
  - system level, 5 columns: ``metric lp testset system score``
  - system level, 6 columns: ``metric lp testset refset system score`` (the WMT20 release form)
  - segment level, 6 columns: ``metric lp testset system seg-id score``
  - segment level, 7 columns: ``metric lp testset doc system seg-id score``
  Six columns are ambiguous; ``level`` decides, else a file named ``*.seg.score`` is segment level
  and ``*.sys.score`` system level, else the file is segment level when every value of the fifth
  column is an integer (a segment number) and system level otherwise.
* canonical CSV (or TSV) with a header: ``metric, lp, system, [segment], score`` plus the optional
  columns ``testset``, ``refset`` and ``doc``; a ``segment`` column makes it segment level.

:func:`read_submission` refuses structural problems (wrong number of columns, empty fields,
scores that are not finite numbers, duplicate keys); :func:`validate_submission` checks the
scores against the campaign (language pairs, systems, segments, completeness, direction).
Every refusal is an :class:`InputError` naming the file, the line and the column.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from leaderboard.errors import InputError, brief
from leaderboard.ingest.textio import csv_records, read_text
from leaderboard.naming import UNSAFE_NAME_CHARS, check_name, is_human, match_systems, strip_index

#: Columns of the frame returned by :func:`read_submission` (``line`` = 1-based source line).
COLUMNS = ["metric", "lp", "testset", "refset", "doc", "system", "segment", "score", "line"]
#: The key that must be unique within a submission.
KEY = ["metric", "lp", "testset", "refset", "system", "segment"]

TSV_LAYOUTS: dict[tuple[str, int], list[str]] = {
    ("system", 5): ["metric", "lp", "testset", "system", "score"],
    ("system", 6): ["metric", "lp", "testset", "refset", "system", "score"],
    ("segment", 6): ["metric", "lp", "testset", "system", "segment", "score"],
    ("segment", 7): ["metric", "lp", "testset", "doc", "system", "segment", "score"],
}
CANONICAL_REQUIRED = ["metric", "lp", "system", "score"]
CANONICAL_OPTIONAL = ["testset", "refset", "doc", "segment"]

#: Metrics whose direction is known from their definition (lower-cased exact names). Error rates
#: (``lower``) are non-negative in their raw form; releases sometimes negate them (all ≤ 0), which
#: makes higher better. See :func:`validate_submission`.
KNOWN_DIRECTIONS: dict[str, str] = {
    **{m: "higher" for m in ("bleu", "sentbleu", "chrf", "chrf+", "chrf++", "meteor", "parbleu", "parchrf++")},
    **{m: "lower" for m in ("ter", "hter", "wer", "per", "cder", "character", "eed")},
}
_MISSING = {"", "na", "nan", "null", "none", "n/a"}
#: problems of one file listed one by one before the rest are counted
MAX_LISTED = 50
_INT = re.compile(r"^[+-]?\d+$")


def _label(path: str | os.PathLike, name: str | None) -> str:
    return name or str(path)


def _parse_score(text: str, file: str, line: int) -> float:
    value = text.strip()
    if value.lower() in _MISSING:
        raise InputError(f"score is missing ({value or 'empty'}); every row needs a finite number",
                         file=file, line=line, column="score")
    try:
        score = float(value)
    except ValueError:
        raise InputError(f"score {value!r} is not a number", file=file, line=line, column="score") from None
    if not math.isfinite(score):
        raise InputError(f"score is {value}; every row needs a finite number", file=file, line=line, column="score")
    return score


def _norm_segment(value: str) -> str:
    """Segment ids are compared as text; integer ids lose leading zeros ("007" → "7")."""
    value = value.strip()
    return str(int(value)) if _INT.match(value) else value


def _tsv_level(rows: list[tuple[int, list[str]]], ncols: int, label: str) -> str:
    if ncols == 5:
        return "system"
    if ncols == 7:
        return "segment"
    base = Path(label).name.lower().removesuffix(".gz")
    if base.endswith(".seg.score"):
        return "segment"
    if base.endswith(".sys.score"):
        return "system"
    return "segment" if all(_INT.match(fields[4].strip()) for _, fields in rows) else "system"


def _read_tsv(text: str, label: str, level: str | None, found: list[InputError] | None = None) -> pd.DataFrame:
    lines = text.split("\n")
    first = next((ln for ln in lines if ln.strip()), "")
    split = (lambda s: s.rstrip("\r").split("\t")) if "\t" in first else (lambda s: s.split())
    rows = [(i, split(ln)) for i, ln in enumerate(lines, start=1) if ln.strip()]
    ncols = len(rows[0][1])
    layouts = {n for (_, n) in TSV_LAYOUTS}
    if ncols not in layouts:
        raise InputError(
            f"found {ncols} columns; a WMT metric file has 5 or 6 (system level: metric lp testset [refset] "
            "system score) or 6 or 7 (segment level: metric lp testset [doc] system seg-id score), "
            "or use a CSV with a header (metric, lp, system, [segment], score)", file=label, line=rows[0][0])
    for lineno, fields in rows:
        if len(fields) != ncols:
            raise InputError(f"found {len(fields)} columns but line {rows[0][0]} has {ncols}",
                             file=label, line=lineno)
    level = level or _tsv_level(rows, ncols, label)
    names = TSV_LAYOUTS.get((level, ncols))
    if names is None:
        wanted = " or ".join(str(n) for (lv, n) in TSV_LAYOUTS if lv == level)
        raise InputError(f"a {level}-level WMT file has {wanted} columns, not {ncols}", file=label, line=rows[0][0])
    return _build(rows, names, label, found)


def _read_canonical(text: str, label: str, level: str | None, delimiter: str,
                    found: list[InputError] | None = None) -> pd.DataFrame:
    records = csv_records(text, label, delimiter)
    if not records:  # blank fields only
        raise InputError("the file is empty", file=label)
    (header_line, header_fields), *rows = records
    header = [f.strip().lower() for f in header_fields]
    for col in header:
        if col not in CANONICAL_REQUIRED + CANONICAL_OPTIONAL:
            raise InputError(f"unknown column {brief(col)!r}; expected metric, lp, system, [segment], score "
                             "(optional: testset, refset, doc)", file=label, line=header_line, column=col)
    for col in CANONICAL_REQUIRED:
        if col not in header:
            raise InputError(f"the header lacks the column {col!r}", file=label, line=header_line, column=col)
    if len(set(header)) != len(header):
        dup = next(c for c in header if header.count(c) > 1)
        raise InputError(f"column {dup!r} appears twice in the header", file=label, line=header_line, column=dup)
    if level == "segment" and "segment" not in header:
        raise InputError("segment-level scores need a 'segment' column", file=label, line=header_line,
                         column="segment")
    if level == "system" and "segment" in header:
        raise InputError("system-level scores must not have a 'segment' column", file=label, line=header_line,
                         column="segment")
    if not rows:
        raise InputError("the file has a header but no scores", file=label, line=header_line)
    for lineno, fields in rows:
        if len(fields) != len(header):
            raise InputError(f"found {len(fields)} columns but the header has {len(header)}", file=label, line=lineno)
    return _build(rows, header, label, found)


def listed(problems: list[InputError], file: str | None, what: str, more: str = "more problems") -> InputError:
    """One error listing ``problems`` one per line: the first :data:`MAX_LISTED`, the rest counted
    ("N {what}:" counts them all)."""
    if len(problems) <= MAX_LISTED:
        return InputError.collect(problems, what)
    shown = problems[:MAX_LISTED] + [InputError(f"… and {len(problems) - MAX_LISTED} {more}", file=file)]
    listing = "\n".join("  - " + p.where(with_file=False) + p.message for p in shown)
    first = problems[0]
    return InputError(f"{len(problems)} {what}:\n{listing}", file=first.file, line=first.line, column=first.column,
                      problems=shown)


def _build(rows: list[tuple[int, list[str]]], names: list[str], label: str,
           found: list[InputError] | None = None) -> pd.DataFrame:
    """Frame from split rows; checks empty fields and scores, normalises segment ids. Row problems are
    raised together, or appended to ``found`` when it is given: a bad score is then kept as NaN, a row
    with an empty name or id is left out (it names nothing the campaign check could find)."""
    data: dict[str, list] = {c: [] for c in COLUMNS}
    index = {c: names.index(c) for c in names}
    problems: list[InputError] = []  # every empty field and bad score, not just the first
    unnamed: set[int] = set()  # lines with an empty metric, lp, system or segment
    for lineno, fields in rows:
        for col in names:
            if col != "score" and col not in ("doc", "testset", "refset") and not fields[index[col]].strip():
                problems.append(InputError(f"the {col} is empty", file=label, line=lineno, column=col))
                unnamed.add(lineno)
        for col in COLUMNS:
            if col == "line":
                data[col].append(lineno)
            elif col == "score":
                try:
                    data[col].append(_parse_score(fields[index[col]], label, lineno))
                except InputError as exc:
                    problems.append(exc)
                    data[col].append(math.nan)
            elif col in index:
                value = fields[index[col]].strip()
                data[col].append(_norm_segment(value) if col == "segment" else (value or None))
            else:
                data[col].append(None)
    if found is not None:
        found.extend(problems)
    elif problems:
        raise listed(problems, label, "problems in the file (nothing was stored)", "more rows with problems")
    frame = pd.DataFrame(data)
    if unnamed:
        frame = frame[~frame["line"].isin(unnamed)].reset_index(drop=True)
    for col in ("metric", "lp", "testset", "refset", "doc", "system", "segment"):
        text = frame[col].fillna("").astype(str)
        unsafe = np.flatnonzero(text.str.contains(UNSAFE_NAME_CHARS).to_numpy(dtype=bool))
        if unsafe.size:
            check_name(text.iloc[unsafe[0]], col, file=label, line=int(frame["line"].iloc[unsafe[0]]))
    frame["score"] = frame["score"].astype(float)
    frame["line"] = frame["line"].astype(int)
    return frame


def read_submission(path: str | os.PathLike, level: str | None = None, name: str | None = None, *,
                    problems: list[InputError] | None = None) -> pd.DataFrame:
    """Read one metric-score file (any accepted format, see the module docstring).

    ``level`` is ``"system"``, ``"segment"`` or ``None`` (detect); ``name`` labels the file in
    errors. Returns the :data:`COLUMNS` frame (absent fields are None) with ``attrs["level"]`` and
    ``attrs["format"]`` set. Duplicate keys are refused here already.

    ``problems``: when a list is given, the problems of single rows (empty fields, scores that are not
    finite numbers) are appended to it instead of raised and duplicates are left to the validation, so
    that :func:`validate_submission` (``earlier=problems``) reports them together with everything the
    campaign check finds. A file that cannot be read as a table is still refused at once.
    """
    label = _label(path, name)
    if level not in (None, "system", "segment"):
        raise InputError(f"level must be system or segment, not {level!r}", file=label)
    text = read_text(path, label, nul_ok=False)
    first = next(ln for ln in text.split("\n") if ln.strip())
    delimiter = "\t" if "\t" in first else ","
    head = {f.strip().strip('"').lower() for f in first.split(delimiter)}
    if {"metric", "score"} <= head:
        frame = _read_canonical(text, label, level, delimiter, problems)
        fmt = "canonical"
    else:
        frame = _read_tsv(text, label, level, problems)
        fmt = "wmt-tsv"
    found_level = "segment" if frame["segment"].notna().any() else "system"
    frame.attrs.update(level=found_level, format=fmt, file=label)
    if problems is None:
        check_duplicates(frame, label)
    return frame


def _where(frame: pd.DataFrame, i: int) -> int | None:
    return int(frame["line"].iloc[i]) if "line" in frame.columns else None


def duplicate_problems(frame: pd.DataFrame, file: str | None = None) -> list[InputError]:
    """Every second (third, …) score for the same (metric, lp, testset, refset, system, segment)."""
    keys = frame[KEY].astype(object).where(frame[KEY].notna(), "")
    later = keys.duplicated(keep="first").to_numpy()
    if not later.any():
        return []
    first_of = keys.reset_index(drop=True).groupby(list(KEY), sort=False).ngroup().to_numpy()
    first_row = {g: i for i, g in reversed(list(enumerate(first_of)))}
    problems = []
    for i in np.flatnonzero(later):
        row = keys.iloc[int(i)]
        what = f"metric {row['metric']}, lp {row['lp']}, system {row['system']}"
        if row["segment"]:
            what += f", segment {row['segment']}"
        first_line = _where(frame, first_row[first_of[i]])
        problems.append(InputError(f"duplicate score for {what} (first given on line {first_line})", file=file,
                                   line=_where(frame, int(i)), column="segment" if row["segment"] else "system"))
    return problems


def check_duplicates(frame: pd.DataFrame, file: str | None = None) -> None:
    """Refuse two scores for the same (metric, lp, testset, refset, system, segment); names every one."""
    problems = duplicate_problems(frame, file)
    if problems:
        raise InputError.collect(problems, "duplicate scores")


def human_system_scores(judgments: pd.DataFrame) -> pd.DataFrame:
    """Ave z per (lp, system) from canonical judgments: SYSTEM/REPEAT items, averaged per segment first."""
    keep = judgments[judgments["item_type"].isin(["SYSTEM", "REPEAT"]) & judgments["z"].notna()]
    per_seg = keep.groupby(["lp", "system", "segment"], observed=True)["z"].mean()
    return per_seg.groupby(level=["lp", "system"], observed=True).mean().rename("z").reset_index()


def _human_column(human: pd.DataFrame) -> str:
    for col in ("z", "ave_z", "Z.SCR", "human", "score"):
        if col in human.columns:
            return col
    raise InputError("the human scores need a column z (Ave z), ave_z, Z.SCR, human or score")


def _did_you_mean(system: str, known: set[str]) -> str:
    base = strip_index(system).lower()
    close = sorted(k for k in known if strip_index(k).lower() == base or k.lower() == system.lower())
    return f" (did you mean {', '.join(close[:3])}?)" if close else ""


def _lines(frame: pd.DataFrame, rows: np.ndarray, limit: int = 5) -> str:
    """"line 4" / "lines 4, 9 and 3 more" for the given row positions."""
    if "line" not in frame.columns or not len(rows):
        return ""
    found = [int(frame["line"].iloc[int(i)]) for i in rows[:limit]]
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return ("line " if len(rows) == 1 else "lines ") + ", ".join(map(str, found)) + more


def match_submitted_systems(frame: pd.DataFrame, systems: Mapping[str, set[str]],
                            file: str | None = None) -> tuple[dict[str, dict[str, str]], list[InputError]]:
    """Map the submitted system names of each language pair to the campaign's, as ``mtlb correlate`` does.

    Exact names first, then names without the per-campaign ``.N`` index
    (:func:`leaderboard.naming.match_systems`). Returns ``({lp: {submitted: campaign name}}, problems)``
    with one problem per unknown name (its first line, and how many lines use it).
    """
    names: dict[str, dict[str, str]] = {}
    problems = []
    lps = frame["lp"].astype(str).to_numpy()
    submitted = frame["system"].astype(str).to_numpy()
    for lp in pd.unique(lps):
        if lp not in systems:
            continue
        in_lp = lps == lp
        wanted = list(pd.unique(submitted[in_lp]))
        mapping = match_systems(wanted, systems[lp])
        names[lp] = mapping
        for name in wanted:
            if name in mapping:
                continue
            rows = np.flatnonzero(in_lp & (submitted == name))
            problems.append(InputError(
                f"unknown system {name!r} for {lp}{_did_you_mean(name, set(systems[lp]))}"
                + (f" ({_lines(frame, rows)})" if len(rows) > 1 else ""),
                file=file, line=_where(frame, int(rows[0])), column="system"))
    return names, problems


def with_campaign_names(frame: pd.DataFrame, names: Mapping[str, Mapping[str, str]]) -> pd.DataFrame:
    """The submission with every system named as the campaign names it (``summary["names"]``)."""
    lps = frame["lp"].astype(str)
    renamed = [names.get(lp, {}).get(system, system) for lp, system in zip(lps, frame["system"].astype(str))]
    return frame.assign(system=renamed)


def _direction_from_name(metric: str, scores: np.ndarray) -> str | None:
    """The direction implied by a known metric's definition and the sign of its scores."""
    kind = KNOWN_DIRECTIONS.get(metric.strip().lower())
    if kind is None:
        return None
    if kind == "higher":
        return "higher" if (scores >= 0).all() else None
    if (scores >= 0).all() and (scores > 0).any():
        return "lower"  # raw error rate
    if (scores <= 0).all() and (scores < 0).any():
        return "higher"  # negated error rate, as in the WMT releases
    return None


def validate_submission(
    frame: pd.DataFrame,
    systems: Mapping[str, set[str]],
    segments: Mapping[str, set[str]] | None = None,
    higher_is_better: bool | None = None,
    human: pd.DataFrame | None = None,
    *,
    file: str | None = None,
    alpha: float = 0.05,
    min_systems: int = 5,
    human_systems: Mapping[str, bool] | None = None,
    earlier: list[InputError] | None = None,
) -> dict:
    """Check a submission against a campaign; raise one :class:`InputError` naming every problem.

    * ``systems``: the campaign's systems per language pair. Submitted names are matched like
      ``mtlb correlate`` does (exact first, then without the ``.N`` index), so the evaluation
      package's names (``Online-B`` for ``Online-B.0``) are accepted. A language pair or system the
      campaign lacks is an error (line, column); a campaign system without a score is an error for
      every (metric, lp, testset, refset) group, except human translations, which metrics need not
      score: the organisers' marks (``human_systems``: name → True / False), else WMT naming
      (:func:`leaderboard.naming.is_human`).
    * ``segments``: the test set's segment ids per language pair (segment level). Unknown ids are
      errors; every system must score every id. Without it, every system must score the same ids.
    * NaN / infinite scores and duplicate keys are errors.
    * These structural problems are collected and reported together
      (``InputError.problems``) with ``earlier`` ones (the row problems :func:`read_submission` found
      with ``problems=``; a row is not reported twice for the same column), one per line, in line order;
      the direction checks below run once they are fixed.
    * Direction (``higher_is_better``, None = not declared, no check). A declared direction is
      refused when (a) the metric is one whose direction is fixed by its definition
      (:data:`KNOWN_DIRECTIONS`: BLEU, chrF… higher; TER, CharacTER, EED… lower as raw
      non-negative error rates, higher once negated as in the WMT releases) and the declaration
      contradicts it, or (b) ``human`` system scores (columns lp, system, z) are given for at
      least ``min_systems`` systems and the system-level scores, oriented by the declared
      direction, correlate negatively with them with one-sided Pearson p < ``alpha``. A real
      metric that is significantly *anti*-correlated with human judgment is far less plausible
      than a flipped sign (every WMT20 system-level metric has r > 0.7 on cs-en and en-cs).
      Segment-level scores are averaged per system for (b).

    Returns a summary: ``{"level", "rows", "names": {lp: {submitted: campaign name}},
    "humans_not_scored": {lp: [names]}, "groups": [{metric, lp, testset, refset, systems, segments,
    rows, higher_is_better, pearson_human, n_human}]}``; store the scores under the campaign's
    names with :func:`with_campaign_names`.
    """
    from scipy import stats

    label = file or frame.attrs.get("file")
    if frame.empty:
        if earlier:  # every row was left out for its own problem
            raise listed(list(earlier), label, "problems in the submission (all listed; nothing was stored)")
        raise InputError("the submission holds no scores", file=label)
    frame = frame.reset_index(drop=True)
    problems: list[InputError] = []
    level = "segment" if frame["segment"].notna().any() else "system"
    if level == "segment" and frame["segment"].isna().any():
        rows = np.flatnonzero(frame["segment"].isna().to_numpy())
        problems.append(InputError(f"segment-level rows need a segment id ({_lines(frame, rows)})", file=label,
                                   line=_where(frame, int(rows[0])), column="segment"))
    scores = frame["score"].to_numpy(dtype=float)
    for i in np.flatnonzero(~np.isfinite(scores)):
        problems.append(InputError("score is NaN or infinite", file=label, line=_where(frame, int(i)), column="score"))
    problems += duplicate_problems(frame, label)

    lps = frame["lp"].astype(str).to_numpy()
    for lp in pd.unique(lps[~np.isin(lps, list(systems))]):
        rows = np.flatnonzero(lps == lp)
        problems.append(InputError(
            f"language pair {lp!r} is not in the campaign (it has {', '.join(sorted(systems))})"
            + (f" ({_lines(frame, rows)})" if len(rows) > 1 else ""),
            file=label, line=_where(frame, int(rows[0])), column="lp"))
    names, unknown = match_submitted_systems(frame, systems, label)
    problems += unknown
    frame = with_campaign_names(frame, names)
    if segments is not None and level == "segment":
        for lp in pd.unique(lps):
            if lp not in systems:
                continue
            seg_known = {str(s) for s in segments.get(lp, set())}
            bad = (lps == lp) & frame["segment"].notna().to_numpy() & \
                ~frame["segment"].astype(str).isin(seg_known).to_numpy()
            ids = list(pd.unique(frame.loc[bad, "segment"].astype(str)))
            if ids:
                rows = np.flatnonzero(bad)
                shown = ", ".join(repr(i) for i in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
                problems.append(InputError(
                    f"unknown segment {shown} for {lp} (the test set has {len(seg_known)} segments; "
                    f"{_lines(frame, rows)})", file=label, line=_where(frame, int(rows[0])), column="segment"))

    known_rows = np.isin(lps, list(systems))
    keyed = frame[known_rows].assign(testset=frame["testset"].fillna(""), refset=frame["refset"].fillna(""))
    humans_not_scored: dict[str, list[str]] = {}
    for (metric, lp, testset, refset), grp in keyed.groupby(["metric", "lp", "testset", "refset"], sort=False):
        where = f"metric {metric}, lp {lp}" + (f", test set {testset}" if testset else "") + \
                (f", reference {refset}" if refset else "")
        absent = set(systems[lp]) - set(grp["system"])
        humans = sorted(s for s in absent if (human_systems or {}).get(s, is_human(s)))
        if humans:
            humans_not_scored[lp] = sorted(set(humans_not_scored.get(lp, [])) | set(humans))
        missing = sorted(absent - set(humans))
        if missing:
            problems.append(InputError(f"no scores for {len(missing)} campaign system(s) ({where}): "
                                       f"{', '.join(missing)}", file=label, column="system"))
        if level == "segment":
            expected = ({str(s) for s in segments[lp]} if segments is not None and lp in segments
                        else set(grp["segment"].dropna().astype(str)))
            have = grp.dropna(subset=["segment"]).groupby("system")["segment"].agg(lambda v: set(v.astype(str)))
            for system, got in have.items():
                lacking = sorted(expected - got, key=lambda x: (len(x), x))
                if lacking:
                    problems.append(InputError(
                        f"system {system!r} lacks scores for {len(lacking)} segment(s) ({where}), "
                        f"e.g. {', '.join(lacking[:5])}", file=label, column="segment"))
    if earlier:
        reported = {(p.line, p.column) for p in earlier if p.line is not None}
        problems = list(earlier) + [p for p in problems if (p.line, p.column) not in reported]
    if problems:
        problems.sort(key=lambda p: (p.line is None, p.line or 0))
        raise listed(problems, label, "problems in the submission (all listed; nothing was stored)")

    keyed = frame.assign(testset=frame["testset"].fillna(""), refset=frame["refset"].fillna(""))
    human_col = _human_column(human) if human is not None else None
    groups = []
    for (metric, lp, testset, refset), grp in keyed.groupby(["metric", "lp", "testset", "refset"], sort=False):
        where = f"metric {metric}, lp {lp}" + (f", test set {testset}" if testset else "") + \
                (f", reference {refset}" if refset else "")
        n_segments = int(grp["segment"].nunique()) if level == "segment" else 0
        per_system = grp.groupby("system")["score"].mean()
        first_line = int(grp["line"].min()) if "line" in grp.columns else None  # where the group starts

        named = _direction_from_name(str(metric), per_system.to_numpy())
        if higher_is_better is not None and named is not None and named != ("higher" if higher_is_better else "lower"):
            declared = "higher" if higher_is_better else "lower"
            kind = KNOWN_DIRECTIONS[str(metric).strip().lower()]
            form = ("an error rate (all scores >= 0)" if named == "lower" else
                    "a negated error rate (all scores <= 0)" if kind == "lower" else "a similarity score")
            raise InputError(
                f"{metric} is declared {declared}-is-better, but as {form} it is {named}-is-better "
                f"({where}); the direction flag is probably wrong", file=label, line=first_line, column="score")

        r = np.nan
        n_h = 0
        if human_col is not None:
            h = human[human["lp"] == lp].set_index("system")[human_col].astype(float)
            both = pd.concat([per_system.rename("m"), h.rename("h")], axis=1, join="inner").dropna()
            n_h = len(both)
            if n_h >= 3 and both["m"].std() > 0 and both["h"].std() > 0:
                sign = -1.0 if higher_is_better is False else 1.0
                res = stats.pearsonr(sign * both["m"], both["h"], alternative="less")
                r = float(res.statistic)
                if higher_is_better is not None and n_h >= min_systems and r < 0 and res.pvalue < alpha:
                    declared = "higher" if higher_is_better else "lower"
                    raise InputError(
                        f"the scores are declared {declared}-is-better but correlate negatively with the human "
                        f"scores (Pearson r = {r:.3f} over {n_h} systems, one-sided p = {res.pvalue:.2g}; {where}); "
                        "the direction flag is probably wrong", file=label, line=first_line, column="score")
        groups.append({"metric": metric, "lp": lp, "testset": testset or None, "refset": refset or None,
                       "systems": int(per_system.size), "segments": n_segments, "rows": int(len(grp)),
                       "higher_is_better": higher_is_better, "pearson_human": r, "n_human": n_h})
    return {"level": level, "rows": int(len(frame)), "groups": groups,
            "names": {lp: {k: v for k, v in mapping.items() if k != v} for lp, mapping in names.items()},
            "humans_not_scored": humans_not_scored}


#: the keys a ranking JSON may give a system's Ave z under
Z_KEYS = ("z", "ave_z", "Ave z", "z_mean", "Z.SCR")


def _walk_ranking_json(obj, lp: str | None, out: list[tuple[str | None, str, float]]) -> None:
    """Collect (lp, system, Ave z or NaN) from a ranking JSON of any reasonable shape."""
    if isinstance(obj, list):
        for item in obj:
            _walk_ranking_json(item, lp, out)
        return
    if not isinstance(obj, dict):
        return
    lp = obj.get("lp", lp) if isinstance(obj.get("lp", lp), (str, type(None))) else lp
    if "system" in obj and isinstance(obj["system"], str):
        z = next((obj[k] for k in Z_KEYS if isinstance(obj.get(k), (int, float))), float("nan"))
        out.append((lp, obj["system"], float(z)))
        return
    for key, value in obj.items():
        if key == "systems" and isinstance(value, dict):
            for name, inner in value.items():
                if isinstance(inner, dict):
                    z = next((inner[k] for k in Z_KEYS if isinstance(inner.get(k), (int, float))), float("nan"))
                    out.append((lp, name, float(z)))
                else:
                    out.append((lp, name, float("nan")))
        elif isinstance(value, (list, dict)):
            _walk_ranking_json(value, lp, out)


def read_human_systems(path: str, lp: str | None) -> tuple[dict[str, set[str]], pd.DataFrame | None]:
    """Systems per lp and human Ave z (lp, system, z) from a ranking's JSON, a WMT system-score file
    (``ad-sys-scores``: SYS … Z.SCR) or a judgments file, read through the size and encoding guards."""
    import io
    import json

    from leaderboard.ingest import read_judgments

    text = read_text(path)
    first = text.lstrip().split("\n", 1)[0]
    if text.lstrip().startswith(("{", "[")):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", file=path, line=exc.lineno) from None
        found: list[tuple[str | None, str, float]] = []
        _walk_ranking_json(obj, None, found)
        frame = pd.DataFrame(found, columns=["lp", "system", "z"])
        if lp is not None:
            frame["lp"] = frame["lp"].fillna(lp)
        if frame.empty or frame["lp"].isna().any():
            raise InputError("found no systems with a language pair in this JSON (give the language pair when it "
                             "has none)", file=path, code="no_lp")
        frame = frame.drop_duplicates(["lp", "system"])
    elif {"SYS", "Z.SCR"} <= set(first.split()):
        if lp is None:
            raise InputError("a WMT system-score file names no language pair; give the language pair", file=path,
                             code="no_lp")
        raw = pd.read_csv(io.StringIO(text), sep=r"\s+", dtype=str)
        z = pd.to_numeric(raw["Z.SCR"], errors="coerce")
        if z.isna().any():
            row = int(np.flatnonzero(z.isna().to_numpy())[0])
            raise InputError(f"not a number: {brief(raw['Z.SCR'].iloc[row])!r}", file=path, line=row + 2,
                             column="Z.SCR")
        frame = pd.DataFrame({"lp": lp, "system": raw["SYS"].astype(str), "z": z.astype(float)})
    else:
        judgments = read_judgments(path, lp=lp)
        frame = human_system_scores(judgments)
        systems = judgments.loc[judgments["item_type"] == "SYSTEM"].groupby("lp", observed=True)["system"]
        return {str(k): set(map(str, v)) for k, v in systems.unique().items()}, (frame if len(frame) else None)
    systems = {str(k): set(v) for k, v in frame.groupby("lp")["system"]}
    human = frame.dropna(subset=["z"])
    return systems, (human if len(human) else None)
