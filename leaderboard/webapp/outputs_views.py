"""Loaders and tables of the submissions-stage pages (teams, automatic scores, test sets).

Plain functions around :mod:`leaderboard.outputs.service`; the automatic leaderboard is cached by
the campaign's submissions revision, so a new submission, primary flag or withdrawal refreshes it.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from ..jsonable import to_jsonable
from ..outputs.board import board_table, board_to_latex
from ..storage.outputs import OutputStore
from ..tables import to_csv_bytes
from . import html_table, state


def outputs_store() -> OutputStore:
    return OutputStore(state.get_store())


def revision(campaign: str) -> str:
    return outputs_store().revision(campaign)


def testsets() -> pd.DataFrame:
    return outputs_store().testsets()


def testset_label(campaign: str, lp: str) -> str:
    return f"{campaign} · {lp}"


@st.cache_data(show_spinner="Computing the automatic leaderboard (paired bootstrap, 1000 resamples)…",
               max_entries=32)
def board(url: str, campaign: str, lp: str, rev: str) -> dict:
    """The automatic leaderboard (``rev`` = :func:`revision`, so changes refresh it)."""
    from ..outputs.service import leaderboard
    return leaderboard(state.get_store(), campaign, lp)


def board_frame(result: dict) -> pd.DataFrame:
    """The leaderboard as shown: rank range, team, system, chrF and BLEU with intervals, primary."""
    table = board_table(result)
    ci = lambda lo, hi: "" if pd.isna(lo) else f"{lo:.2f}–{hi:.2f}"  # noqa: E731
    return pd.DataFrame({
        "Rank": table["rank"], "Team": table["team"], "System": table["system"],
        "chrF": table["chrf"], "chrF 95% CI": [ci(a, b) for a, b in zip(table["chrf_lo"], table["chrf_hi"])],
        "BLEU": table["bleu"], "BLEU 95% CI": [ci(a, b) for a, b in zip(table["bleu_lo"], table["bleu_hi"])],
        "Cluster": table["cluster"], "Primary": table["primary"].map({True: "yes", False: ""}),
    })


def board_markup(result: dict) -> str:
    """The leaderboard (HTML) with a rule above the first system of each significance cluster."""
    shown = board_frame(result)
    rows = [html_table.CLUSTER_RULE if new else "" for new in html_table.cluster_starts(shown["Cluster"].tolist())]
    return html_table.table_html(shown, {"chrF": "{:.2f}", "BLEU": "{:.2f}", "Cluster": "{:.0f}"}, row_css=rows,
                                 number_columns=["chrF 95% CI", "BLEU 95% CI"])


def board_exports(result: dict) -> dict[str, bytes]:
    return {"csv": to_csv_bytes(board_table(result)),
            "json": json.dumps(to_jsonable(result), indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8"),
            "tex": board_to_latex(result).encode("utf-8")}


def team_position(result: dict, team: str) -> tuple[str, int] | None:
    """(rank range, number of entries) of ``team`` on the leaderboard, None when it is not on it."""
    scored = [s for s in result["systems"] if s["chrf"] is not None]
    for s in scored:
        if s["team"] == team:
            rank = f"{s['rank_lo']}" if s["rank_lo"] == s["rank_hi"] else f"{s['rank_lo']}–{s['rank_hi']}"
            return rank, len(scored)
    return None


def submissions_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Submissions as shown in tables: plain text and numbers only."""
    from ..outputs.service import iso
    if frame.empty:
        return pd.DataFrame(columns=["id", "campaign", "lp", "team", "system", "BLEU", "chrF", "primary",
                                     "withdrawn", "flags", "submitted"])
    return pd.DataFrame({
        "id": frame["id"], "campaign": frame["campaign"], "lp": frame["lp"], "team": frame["team"],
        "system": frame["system"], "BLEU": frame["bleu"], "chrF": frame["chrf"],
        "primary": frame["primary"], "withdrawn": frame["withdrawn"],
        "flags": [", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in f.items()) for f in frame["flags"]],
        "submitted": [(iso(t) or "")[:19].replace("T", " ") for t in frame["created_at"]],
    })
