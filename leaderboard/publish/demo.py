"""The shipped demo campaign: loaded and published on first start so a newcomer sees results.

``leaderboard/demo_data/wmt22-cs-en/`` (package data, so an installed package has it too) holds a credited excerpt of the WMT22 into-English crowd DA release
(Czech→English judgments of the workers who passed QC, with their mean/sd file) and the WMT22 general
test set's cs-en sources, references and system outputs (Kocmi et al., 2022, "Findings of the 2022
Conference on Machine Translation (WMT22)"). Everything is gzip-compressed.

``leaderboard/demo_data/wmt21-cs-en/`` holds the year before: the WMT21 news task's cs-en crowd DA
release (Akhbardeh et al., 2021, "Findings of the 2021 Conference on Machine Translation (WMT21)"),
judgments and worker mean/sd only, so the Across years page compares two WMT years on first visit.

``leaderboard/demo_data/wmt22-cs-en/testset/`` (the first 400 segments of the same test set, with
references B and C and five systems' outputs) makes a small shared task: the test set is released
in the demo campaign and four teams submit five outputs (:data:`DEMO_TEAMS`), so the Automatic
scores page shows a leaderboard on first start.
Both WMT excerpts ship the release's per-worker QC statistics of their workers (``ad-trk-stats``),
shown on the Quality control page.

``mtlb demo`` also gives a store that holds nothing but the demo an organiser and a metric-developer
account (:func:`ensure_demo_accounts`), with passwords made for that store and shown by ``mtlb demo``
and the store's Log in page. A store holding anything else (another campaign, another account) gets
none: a password shown to every visitor must never open a store with real work in it. The app's own
loading of the demo into an empty store (``state.ensure_demo``) makes no accounts, nor do the
container and compose deployments, which run ``mtlb demo`` without them.

``leaderboard/demo_data/simulated/`` holds a campaign made by the crowd-worker simulator
(:mod:`leaderboard.human.simulate`; the command that made it is in ``leaderboard/demo_data/README.md``): two language
pairs judged by good, lenient, harsh and random-clicking workers, so the QC page shows workers
failing. It is ranked after worker QC (paired t-test) and per-worker standardisation.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..ingest import read_judgments
from ..ingest.texts import parse_text_name, read_lines
from ..storage.store import Store, frame_hash

DEMO_CAMPAIGN = "WMT22 cs-en (demo)"
#: the year before (WMT21 news task, cs-en): with it the Across years page opens on a comparison
WMT21_CAMPAIGN = "WMT21 cs-en (demo)"
DEMO_PUBLISHER = "demo"
SIMULATED_CAMPAIGN = "Simulated crowd (demo)"
SIMULATED_QC = "paired-t"


#: the demo shared task: team → the WMT22 cs-en systems it submits (the first is its primary)
DEMO_TEAMS: dict[str, tuple[str, ...]] = {
    "CUNI": ("CUNI-DocTransformer", "CUNI-Transformer"),
    "JDExploreAcademy": ("JDExploreAcademy",),
    "Lan-Bridge": ("Lan-Bridge",),
    "ALMAnaCH-Inria": ("ALMAnaCH-Inria",),
}

PACKAGED_DEMO_DIR = Path(__file__).resolve().parents[1] / "demo_data"


def demo_dir() -> Path:
    """Where the demo files are: ``MTLB_DEMO_DIR`` when set, else the package's ``demo_data``."""
    env = os.environ.get("MTLB_DEMO_DIR")
    return Path(env) if env else PACKAGED_DEMO_DIR


def ensure_demo_accounts(store: Store) -> dict:
    """The demo accounts of ``store``, created when the store holds only the demo and has none yet.

    Returns ``{"accounts": [{"name", "role", "password"}], "not_created": None | why}``: a store that
    already has demo accounts keeps them (none is added or changed); one holding anything beyond the
    demo gets none, and ``not_created`` names what it holds.
    """
    from ..accounts import demo as demo_accounts
    from ..storage import demo_accounts as stored

    existing = demo_accounts.listed(store)
    if existing:
        return {"accounts": existing, "not_created": None}
    held = stored.contents(store.engine)
    other_campaigns = [c for c in held["campaigns"] if c not in (DEMO_CAMPAIGN, WMT21_CAMPAIGN, SIMULATED_CAMPAIGN)]
    other_users = [u for u in held["users"] if u not in DEMO_TEAMS and u not in demo_accounts.DEMO_ACCOUNTS]
    if other_campaigns or other_users:
        what = [f"campaign {c!r}" for c in other_campaigns[:3]] + [f"account {u!r}" for u in other_users[:3]]
        return {"accounts": [], "not_created": "this store holds more than the demo (" + ", ".join(what) + "), so "
                "no account whose password is shown to every visitor is added to it"}
    return {"accounts": demo_accounts.create(store), "not_created": None}


def ensure_demo(store: Store, *, publish: bool = True) -> dict | None:
    """Load and publish the demo campaigns that are not stored yet; None when all are there."""
    stored = set(store.campaigns()["campaign"])
    if {DEMO_CAMPAIGN, WMT21_CAMPAIGN, SIMULATED_CAMPAIGN} <= stored:
        return None
    return load_demo(store, publish=publish, skip=stored)


def load_demo(store: Store, *, publish: bool = True, skip: set[str] = frozenset()) -> dict:
    """Load (and publish) the demo campaigns, except those named in ``skip``."""
    result: dict = {"campaigns": [], "judgments": 0, "text_lines": 0, "published": []}
    # the WMT22 excerpt is published last, so the app opens on it (newest publication first)
    parts = [(SIMULATED_CAMPAIGN, _load_simulated), (WMT21_CAMPAIGN, _load_wmt21_excerpt),
             (DEMO_CAMPAIGN, _load_wmt22_excerpt)]
    for name, load in parts:
        if name in skip:
            continue
        done = load(store, publish)
        result["campaigns"].append(name)
        result["judgments"] += done["judgments"]
        result["text_lines"] += done.get("text_lines", 0)
        result["published"] += done["published"]
    return result


def _load_simulated(store: Store, publish: bool) -> dict:
    path = demo_dir() / "simulated" / "simulated-campaign.csv.gz"
    frame = read_judgments(path, "canonical", campaign=SIMULATED_CAMPAIGN)
    summary = store.load_judgments(frame, file_name=path.name, input_format="canonical",
                                   sha256=frame_hash(frame), created_by=DEMO_PUBLISHER)
    published = []
    if publish:
        from .snapshots import publish_rankings
        # the note every demo version carries since the first release (stores compare equal across versions)
        published = publish_rankings(store, SIMULATED_CAMPAIGN, DEMO_PUBLISHER, qc=SIMULATED_QC,
                                     note="simulated crowd campaign (leaderboard.simulate)")
    return {"judgments": summary["judgments"], "published": published}


def _load_wmt22_excerpt(store: Store, publish: bool) -> dict:
    folder = demo_dir() / "wmt22-cs-en"
    judgments = _store_release(store, folder, DEMO_CAMPAIGN)
    files = []
    for path in sorted((folder / "texts").glob("*.gz")):
        info = parse_text_name(path.name)
        files.append((info.lp, info.kind, info.name, read_lines(path), path.name))
    texts = store.load_texts(DEMO_CAMPAIGN, files, created_by=DEMO_PUBLISHER)
    submissions = _load_shared_task(store, folder / "testset")
    # the release's segment ids (sid) are not line numbers of the general test set: sentence-level
    # chrF correlates with the DA scores only by chance under any line offset
    store.set_segments_are_lines(DEMO_CAMPAIGN, False)
    result = {"judgments": judgments, "text_lines": texts, "submissions": submissions, "published": []}
    if publish:
        result["published"] = _publish_release(store, DEMO_CAMPAIGN, folder, "demo excerpt of the WMT22 release",
                                               "WMT22 release, ad-trk-stats.csv and ad-trk-stats.class")
    return result


def _load_shared_task(store: Store, texts: Path) -> int:
    """Release the excerpt of the cs-en test set in the demo campaign and submit :data:`DEMO_TEAMS`'
    outputs; returns how many submissions were stored (each scored with sacrebleu as a team's upload is)."""
    from ..outputs.service import add_team, add_testset, submit
    name = "generaltest2022.cs-en"
    add_testset(store, DEMO_CAMPAIGN, "cs-en", texts / f"{name}.src.cs.gz",
                [texts / f"{name}.ref.B.en.gz", texts / f"{name}.ref.C.en.gz"], name="generaltest2022 (first 400)",
                created_by=DEMO_PUBLISHER)
    stored = 0
    for team, systems in DEMO_TEAMS.items():
        add_team(store, team, verified=True, institution="WMT22 participant (demo)", verified_by=DEMO_PUBLISHER)
        for k, system in enumerate(systems):
            submit(store, texts / f"{name}.hyp.{system}.en.gz", campaign=DEMO_CAMPAIGN, lp="cs-en", team=team,
                   system=system, primary=k == 0, created_by=DEMO_PUBLISHER)
            stored += 1
    return stored


def _store_release(store: Store, folder: Path, campaign: str) -> int:
    """Store a release excerpt's judgments with its worker mean/sd; returns how many were stored."""
    frame = read_judgments(folder / "ad-csen-good-stnd.csv.gz", "wmt-stnd",
                           worker_stats=folder / "ad-csen-trk-mean-sd.txt", campaign=campaign)
    return store.load_judgments(frame, file_name="ad-csen-good-stnd.csv.gz", input_format="wmt-stnd",
                                sha256=frame_hash(frame), created_by=DEMO_PUBLISHER)["judgments"]


def _publish_release(store: Store, campaign: str, folder: Path, note: str, source: str) -> list:
    """Publish a release excerpt under qc:release (the release holds only workers who passed the organisers'
    QC: record that, filter nothing), with the release's own per-worker verdicts (shipped beside the
    excerpt, when they are) as an extra artifact."""
    from ..ingest.release_qc import read_trk_class, read_trk_stats
    from .snapshots import publish_rankings, release_qc_of
    stats_path, class_path = folder / "ad-trk-stats.csv.gz", folder / "ad-trk-stats.class.gz"
    release_qc = None
    if stats_path.exists():
        verdicts = read_trk_class(class_path) if class_path.exists() else None
        release_qc = release_qc_of(store, campaign, read_trk_stats(stats_path), verdicts, source)
    return publish_rankings(store, campaign, DEMO_PUBLISHER, qc="release", note=note,
                            extra_artifacts={"release_qc": release_qc})


def _load_wmt21_excerpt(store: Store, publish: bool) -> dict:
    """WMT21 cs-en (newstest2021): the release's judgments and worker mean/sd; no texts."""
    folder = demo_dir() / "wmt21-cs-en"
    result = {"judgments": _store_release(store, folder, WMT21_CAMPAIGN), "published": []}
    if publish:
        result["published"] = _publish_release(store, WMT21_CAMPAIGN, folder, "demo excerpt of the WMT21 release",
                                               "WMT21 release, ad-trk-stats.csv (verdict: p < 0.05)")
    return result
