"""Cached loaders of the web app.

Everything heavy is cached process-wide with ``st.cache_data`` and keyed on what identifies the data:
a published snapshot by (campaign, lp, assessment, version); stored judgments by the campaign's
import log (a new upload changes the key); the lists (snapshots, campaigns, import tokens) by the
store's fingerprint (:func:`leaderboard.storage.version.data_version`, one cheap query per read).
So a write by any process — another app replica, the command line — shows on the next rerun of
every replica, with no time-to-live and no restart. The store itself is a ``st.cache_resource``.

What a published version's pages show (per-segment scores, its QC, metric baselines) is read from the
artifacts stored with it at publish time (:func:`artifact`, :mod:`leaderboard.publish.artifacts`), so a first
visit reads instead of computing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from typing import Any, Callable

import pandas as pd
import streamlit as st

from ..storage import Store, default_url
from ..storage.store import frame_hash

def store_url() -> str:
    """The database URL this process uses (DATABASE_URL / MTLB_DATA_DIR are read by the store)."""
    return default_url()


@st.cache_resource(show_spinner=False)
def _store(url: str) -> Store:
    return Store(url)


def get_store() -> Store:
    return _store(store_url())


def has_module(name: str) -> bool:
    """True when an optional package (e.g. kaleido, for static chart exports) is importable."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@st.cache_resource(show_spinner="Loading the demo campaign (first start only)…")
def _demo_once(url: str) -> dict | None:
    from ..publish import demo
    store = _store(url)
    if not store.snapshots().empty:
        return None
    return demo.ensure_demo(store)


def ensure_demo() -> dict | None:
    """Load and publish the shipped demo when nothing is published yet (once per process).

    ``MTLB_NO_DEMO=1`` turns this off (tests that need an empty store).
    """
    if os.environ.get("MTLB_NO_DEMO"):
        return None
    try:
        result = _demo_once(store_url())
    except Exception as exc:  # a broken demo must not take the app down
        from .markdown import md_escape
        st.warning(f"The demo campaign could not be loaded: {md_escape(str(exc))}")
        return None
    if result:
        invalidate()
    return result


@st.cache_data(show_spinner=False, max_entries=16)
def _opens(password_hash: str, password: str) -> bool:
    from ..accounts.auth import verify_password
    return verify_password(password_hash, password)


def demo_accounts() -> list[dict]:
    """The demo accounts of this store that their kept password still opens (``{"name", "role",
    "password"}``): made by ``mtlb demo`` for a store holding only the demo. Read on every call (one small
    query), each password checked once per hash."""
    import re

    from ..storage import demo_accounts as stored
    plain = re.compile(r"[A-Za-z0-9._-]+")  # shown inside code spans: nothing that could leave one
    return [{k: a[k] for k in ("name", "role", "password")} for a in stored.accounts(get_store().engine)
            if plain.fullmatch(a["name"]) and plain.fullmatch(a["password"])
            and _opens(a["password_hash"], a["password"])]


def is_demo_store() -> bool:
    """True when this store holds the demo campaigns (loaded by `mtlb demo` or on the app's first start)."""
    from ..publish.demo import DEMO_CAMPAIGN
    listed = campaigns(store_url())
    return not listed.empty and DEMO_CAMPAIGN in set(listed["campaign"])


# ---- lists: keyed by the store's fingerprint ----------------------------------------------
def store_version(url: str) -> tuple:
    """What is stored, in brief: changes with every import, publication or campaign change."""
    from ..storage.version import data_version
    return data_version(_store(url).engine)


@st.cache_data(show_spinner=False, max_entries=8)
def _snapshots(url: str, version: tuple) -> pd.DataFrame:
    return _store(url).snapshots()


def snapshots(url: str) -> pd.DataFrame:
    """Every published version (no payloads)."""
    return _snapshots(url, store_version(url))


@st.cache_data(show_spinner=False, max_entries=8)
def _campaigns(url: str, version: tuple) -> pd.DataFrame:
    return _store(url).campaigns()


def campaigns(url: str) -> pd.DataFrame:
    return _campaigns(url, store_version(url))


@st.cache_data(show_spinner=False, max_entries=64)
def _campaign_info(url: str, campaign: str, version: tuple) -> dict:
    return _store(url).campaign_info(campaign)


def campaign_info(url: str, campaign: str) -> dict:
    """Name, description and ``segments_are_lines`` (False: segment ids do not index the stored texts)."""
    return _campaign_info(url, campaign, store_version(url))


@st.cache_data(show_spinner=False, max_entries=64)
def _data_token(url: str, campaign: str, version: tuple) -> str:
    from ..storage.outputs import OutputStore
    import hashlib
    imports = _store(url).imports(campaign)
    # a digest of every import's id, checksum and time: SQLite may hand a retracted import's id to
    # the next one, so a count and the largest id are not enough
    listing = imports[["id", "sha256", "created_at"]].astype(str).to_csv(index=False)
    token = "empty" if imports.empty else \
        f"{len(imports)}-{hashlib.sha256(listing.encode('utf-8')).hexdigest()[:16]}"
    # test sets and primary submissions are texts of the campaign too (Store.texts)
    outputs = OutputStore(_store(url)).revision(campaign)
    token = token if set(outputs.split("-")) == {"0"} else f"{token}-{outputs}"
    # judgments collected in the service arrive one by one, under one import
    from ..storage.collect import revision
    collected = revision(_store(url), campaign)
    return token if collected == "0-0" else f"{token}-c{collected}"


@st.cache_data(show_spinner=False, max_entries=64)
def _judgment_formats(url: str, campaign: str, version: tuple) -> list[str]:
    imports = _store(url).imports(campaign)
    return [str(f) for f in imports.loc[imports["kind"] == "judgments", "input_format"]]


def judgment_formats(url: str, campaign: str) -> list[str]:
    """The input formats of the campaign's judgment imports (``auto`` QC trusts WMT releases)."""
    return _judgment_formats(url, campaign, store_version(url))


def data_token(url: str, campaign: str) -> str:
    """Identifies the stored data of a campaign: changes whenever an import is added or retracted."""
    return _data_token(url, campaign, store_version(url))


# ---- published snapshots ----------------------------------------------------------------
@st.cache_data(show_spinner=False, max_entries=256)
def snapshot(url: str, campaign: str, lp: str, assessment: str, version: int) -> dict:
    """One published version, hash-verified by the store (immutable, so cached for good)."""
    return _store(url).snapshot(campaign, lp, assessment, int(version))


@st.cache_data(show_spinner=False, max_entries=512)
def _artifact(url: str, campaign: str, lp: str, assessment: str, version: int, name: str) -> Any:
    return _store(url).snapshot_artifact(campaign, lp, assessment, int(version), name)


def artifact(url: str, campaign: str, lp: str, assessment: str, version: int, name: str,
             compute: Callable[[], Any] | None = None) -> Any:
    """An artifact of a published snapshot (:mod:`leaderboard.publish.artifacts`), computed at publish time.

    Snapshots published before artifacts existed have none: then ``compute()`` (the page's own cached
    computation) gives it, and it is stored with the snapshot for every later visit and every replica
    (best effort: a read-only store just keeps computing). None when absent and no ``compute``.
    """
    value = _artifact(url, campaign, lp, assessment, int(version), name)
    if value is not None or compute is None:
        return value
    value = compute()
    if value is not None:
        try:
            if _store(url).save_snapshot_artifact(campaign, lp, assessment, int(version), name, value):
                _artifact.clear()
        except Exception:  # noqa: BLE001 - caching must never break a page
            pass
    return value


def ranking_spec(url: str, campaign: str, lp: str, assessment: str, version: int) -> Any:
    """How a published snapshot's ranking was made (:mod:`leaderboard.human.spec`): its ``spec``
    artifact; a snapshot stored before specs were: the legacy reader's (None: not recorded)."""
    from ..human.spec import snapshot_spec
    return snapshot_spec(artifact(url, campaign, lp, assessment, int(version), "spec"),
                         snapshot(url, campaign, lp, assessment, int(version))["ranking"])


@st.cache_data(show_spinner=False, max_entries=256)
def ranking_table(url: str, campaign: str, lp: str, assessment: str, version: int) -> pd.DataFrame:
    from ..publish.render import ranking_table as table
    return table(snapshot(url, campaign, lp, assessment, version)["ranking"])


@st.cache_resource(show_spinner=False, max_entries=256)
def figure(kind: str, url: str, campaign: str, lp: str, assessment: str, version: int):
    """A chart of a published snapshot, built once per version (callers must not modify it)."""
    from . import charts
    ranking = snapshot(url, campaign, lp, assessment, version)["ranking"]
    if kind == "heatmap":
        return charts.heatmap_figure(ranking, ranking_spec(url, campaign, lp, assessment, version))
    return {"ranking": charts.ranking_figure, "rank_shares": charts.rank_shares_figure}[kind](ranking)


@st.cache_data(show_spinner=False, max_entries=256)
def exports(url: str, campaign: str, lp: str, assessment: str, version: int) -> dict[str, bytes]:
    """CSV, JSON and LaTeX bytes of a published snapshot."""
    from ..jsonable import json_text
    from ..publish.render import ranking_to_latex
    from ..tables import to_csv_bytes
    snap = snapshot(url, campaign, lp, assessment, version)
    return {"csv": to_csv_bytes(ranking_table(url, campaign, lp, assessment, version)),
            "json": json_text(snap).encode("utf-8"),
            "tex": ranking_to_latex(snap["ranking"]).encode("utf-8")}


# ---- stored data ------------------------------------------------------------------------
@st.cache_data(show_spinner="Reading judgments…", max_entries=8)
def judgments(url: str, campaign: str, lp: str | None, assessment: str | None, token: str) -> pd.DataFrame:
    """Stored judgments (``token`` = :func:`data_token`, so a new import refreshes them)."""
    return _store(url).judgments(campaign, lp, assessment)


@st.cache_data(show_spinner=False, max_entries=16)
def texts(url: str, campaign: str, lp: str, token: str) -> pd.DataFrame:
    return _store(url).texts(campaign, lp)


@st.cache_data(show_spinner="Running worker quality control…", max_entries=16)
def qc(url: str, campaign: str, lp: str | None, assessment: str | None, token: str, method: str,
       alpha: float, count_lp: str | None = None) -> tuple[pd.DataFrame, Any, dict, str]:
    """(kept judgments, per-worker report, summary, data hash of the kept judgments). ``count_lp``: the
    report and summary cover only the workers of that language pair (verdicts still pooled over ``lp``)."""
    from ..human.qc import filter_judgments, lp_report, qc_summary, qc_summary_for_lp
    frame = judgments(url, campaign, lp, assessment, token)
    kept, report = filter_judgments(frame, method, alpha)
    if count_lp:
        return kept, lp_report(report, frame, count_lp), qc_summary_for_lp(report, frame, count_lp), \
            (frame_hash(kept) if len(kept) else "")
    return kept, report, qc_summary(report), (frame_hash(kept) if len(kept) else "")


@st.cache_data(show_spinner=False, max_entries=64)
def metric_scores(url: str, submission_id: int) -> pd.DataFrame:
    return _store(url).metric_scores(int(submission_id))


@st.cache_data(show_spinner="Reading expert annotations…", max_entries=16)
def expert_annotations(url: str, campaign: str, lp: str, assessment: str, token: str) -> pd.DataFrame:
    """Stored MQM annotations / ESA spans of a language pair (``token``: :func:`data_token`)."""
    from ..storage.expert import annotation_rows
    return annotation_rows(_store(url), campaign, lp, assessment)


@st.cache_data(show_spinner=False, max_entries=16)
def mqm_errors(url: str, campaign: str, lp: str, token: str) -> pd.DataFrame:
    from ..storage.expert import mqm_errors as errors
    return errors(_store(url), campaign, lp)


@st.cache_data(show_spinner=False, max_entries=16)
def expert_outputs(url: str, campaign: str, lp: str, token: str) -> pd.DataFrame:
    from ..storage.expert import outputs
    return outputs(_store(url), campaign, lp)


def invalidate() -> None:
    """Drop the cached lists after a write from this process (they would be refreshed anyway: the
    store's fingerprint changed); published snapshots stay cached, they never change."""
    _snapshots.clear()
    _campaigns.clear()
    _campaign_info.clear()
    _data_token.clear()
    _judgment_formats.clear()


# ---- chart export ------------------------------------------------------------------------
def chrome_path() -> str | None:
    """A Chrome/Chromium for kaleido's static export, or None."""
    env = os.environ.get("BROWSER_PATH")
    if env and os.path.exists(env):
        return env
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@st.cache_resource(show_spinner=False)
def static_export_available() -> bool:
    """kaleido (≥ 1 drives a local Chromium) can turn figures into PNG / SVG here."""
    path = chrome_path()
    if not path or not has_module("kaleido"):
        return False
    os.environ.setdefault("BROWSER_PATH", path)
    return True
