"""Loaders and tables of the submissions-stage pages (teams, automatic scores, test sets).

Plain functions around :mod:`leaderboard.outputs.service`; the automatic leaderboard is cached by
the campaign's submissions revision, so a new submission, primary flag or withdrawal refreshes it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ..jsonable import json_text
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


def board_frame(result: dict, autorank: dict | None = None) -> pd.DataFrame:
    """The leaderboard as shown: rank range, team, system, chrF and BLEU with intervals, primary, and
    AutoRank when ``autorank`` (a :func:`autorank` result with systems) is given."""
    table = board_table(result)
    ci = lambda lo, hi: "" if pd.isna(lo) else f"{lo:.2f}–{hi:.2f}"  # noqa: E731
    frame = pd.DataFrame({
        "Rank": table["rank"], "Team": table["team"], "System": table["system"],
        "chrF": table["chrf"], "chrF 95% CI": [ci(a, b) for a, b in zip(table["chrf_lo"], table["chrf_hi"])],
        "BLEU": table["bleu"], "BLEU 95% CI": [ci(a, b) for a, b in zip(table["bleu_lo"], table["bleu_hi"])],
        "Cluster": table["cluster"], "Primary": table["primary"].map({True: "yes", False: ""}),
    })
    if autorank and autorank.get("systems"):
        values = {s["system"]: s["autorank"] for s in autorank["systems"]}
        frame.insert(7, "AutoRank", [values.get(s, np.nan) for s in table["system"]])
    return frame


def board_markup(result: dict, autorank: dict | None = None) -> str:
    """The leaderboard (HTML) with a rule above the first system of each significance cluster."""
    shown = board_frame(result, autorank)
    rows = [html_table.CLUSTER_RULE if new else "" for new in html_table.cluster_starts(shown["Cluster"].tolist())]
    return html_table.table_html(shown, {"chrF": "{:.2f}", "BLEU": "{:.2f}", "Cluster": "{:.0f}",
                                         "AutoRank": "{:.2f}"}, row_css=rows,
                                 number_columns=["chrF 95% CI", "BLEU 95% CI"])


# ---- AutoRank ---------------------------------------------------------------------------------------
def autorank_revision(campaign: str) -> str:
    """Changes with the submissions, the metric submissions (and their visibility) and the snapshots."""
    store = state.get_store()
    subs = store.metric_submissions(campaign, include_private=True)
    marks = ",".join(f"{i}{'p' if p else ''}" for i, p in zip(subs["id"], subs["public"]))
    return f"{revision(campaign)}|{marks}|{len(store.snapshots(campaign))}"


@st.cache_data(show_spinner="Computing AutoRank from the stored metric scores…", max_entries=64)
def autorank(url: str, campaign: str, lp: str, rev: str, viewer: str | None, organiser: bool,
             protocol: str | None = None) -> dict:
    """AutoRank of the test set (:func:`leaderboard.outputs.autorank.testset_autorank`): organisers use
    every stored metric submission and see the human rank; others the public ones and their own."""
    from ..outputs.autorank import testset_autorank
    return testset_autorank(state.get_store(), campaign, lp, protocol=protocol, viewer=viewer,
                            include_private=organiser, human=organiser)


AUTORANK_TYPES = {"constrained": "constrained", "open": "open", "closed": "closed", None: "unknown"}


def autorank_frame(result: dict, human: bool = False) -> pd.DataFrame:
    """AutoRank as shown: position, system, AutoRank, the metric values, the category and selection,
    and (``human``) the published human rank beside it."""
    from ..outputs.autorank import contract, flat_table
    table = flat_table([contract(result, True, human)])
    frame = pd.DataFrame({"#": table["position"], "System": table["system"], "AutoRank": table["autorank"]})
    for metric in result.get("metrics", []):
        frame[metric] = table[metric]
    if "type" in table:
        frame["Type"] = [AUTORANK_TYPES.get(t if isinstance(t, str) else None, "unknown") for t in table["type"]]
        frame["Human evaluation"] = table["human_eval"].map({True: "selected", False: ""})
        frame["Why"] = table["reason"]
    if human and "human_rank" in table:
        frame["Human rank"] = table["human_rank"]
        frame["Human score"] = table["human_score"]
    return frame


def autorank_markup(result: dict, human: bool = False) -> str:
    shown = autorank_frame(result, human)
    formats = {"AutoRank": "{:.2f}", "Human score": "{:.2f}"}
    formats.update({m: "{:.4g}" for m in result.get("metrics", [])})
    return html_table.table_html(shown, formats, number_columns=["Human rank"] if "Human rank" in shown else None)


def autorank_exports(result: dict, human: bool = False) -> dict[str, bytes]:
    """CSV (one row per system) and JSON (the ``mtlb autorank --select --json`` form) of AutoRank."""
    from ..outputs.autorank import contract, flat_table
    body = contract(result, True, human)
    return {"csv": to_csv_bytes(flat_table([body])),
            "json": json_text({**body, "protocol": result["protocol"], "metrics": result["metrics"]}).encode("utf-8")}


def board_exports(result: dict) -> dict[str, bytes]:
    return {"csv": to_csv_bytes(board_table(result)),
            "json": json_text(result).encode("utf-8"),
            "tex": board_to_latex(result).encode("utf-8")}


def rank_sentence(result: dict, team: str, campaign: str, lp: str) -> str | None:
    """Where the team stands, saying which of its submissions is ranked (the board holds one per team: its
    latest live primary submission, else its best by chrF). Plain text; None when the team is not on it."""
    scored = [s for s in result["systems"] if s["chrf"] is not None]
    entry = next((s for s in scored if s["team"] == team), None)
    if entry is None:
        return None
    rank = f"{entry['rank_lo']}" if entry["rank_lo"] == entry["rank_hi"] else f"{entry['rank_lo']}–{entry['rank_hi']}"
    which = (f"primary submission ({entry['system']})" if entry.get("primary") else
             f"best submission by chrF ({entry['system']}; it has no primary submission)")
    return (f"Your team's {which} is ranked {rank} of {len(scored)} teams on the automatic leaderboard of "
            f"{campaign} {lp} (by chrF, with significance clusters; each team is ranked by its primary submission).")


def flag_text(flag: str, count: int) -> str:
    """A submission check's note in words: ``lines_copied_from_source``, 1 → "1 line copied from source"."""
    words = flag.replace("_", " ")
    if count == 1:  # "1 empty line", "1 line equal to reference A"
        words = words.replace("lines", "line", 1)
    return f"{count} {words}"


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
