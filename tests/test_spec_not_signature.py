"""Nothing reads a signature back: every ranking carries a spec, snapshots store it, and the pages, captions
and charts read it. One reader, :func:`leaderboard.human.spec.legacy_spec`, reads the signatures of
snapshots stored before specs were, and only when the ``spec`` artifact is absent."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT
from test_app_pages import fresh_store

PACKAGE = ROOT / "leaderboard"
LEGACY = ("human/spec.py", "legacy_spec")


def _functions(tree: ast.AST):
    """(node, enclosing function name or None) for every node."""
    def walk(node, owner):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else owner
            yield child, inner
            yield from walk(child, inner)
    yield from walk(tree, None)


def _signature_readers(path: Path) -> list[str]:
    """Places in ``path`` that parse a signature: ``parse_signature``, a split/partition on ``|``, or a
    regular expression over something named signature."""
    source = path.read_text(encoding="utf-8")
    rel = path.relative_to(PACKAGE).as_posix()
    found = []
    for node, owner in _functions(ast.parse(source)):
        if (rel, owner) == LEGACY:
            continue
        where = f"{rel}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Name) and node.id == "parse_signature" or \
                isinstance(node, ast.Attribute) and node.attr == "parse_signature" or \
                isinstance(node, ast.alias) and node.name == "parse_signature":
            found.append(f"{where} parse_signature")
        if isinstance(node, ast.FunctionDef) and node.name == "parse_signature":
            found.append(f"{where} defines parse_signature")
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        splits = node.func.attr in ("split", "partition", "rpartition", "rsplit") and bool(node.args) and \
            isinstance(node.args[0], ast.Constant) and "|" in str(node.args[0].value)
        regex = isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
        if not (splits or regex):
            continue
        # the source text only of the calls that may be hits: get_source_segment re-reads the whole file
        text = ast.get_source_segment(source, node) or ""
        if splits:
            found.append(f"{where} splits on '|': {text[:60]}")
        if regex and "signature" in text.lower():
            found.append(f"{where} regex over a signature: {text[:60]}")
    return found


def test_only_the_legacy_reader_parses_a_signature():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _signature_readers(path)]
    assert found == []
    # the scan sees what it looks for: the legacy reader itself is found once its exemption is lifted
    spec_py = PACKAGE / "human" / "spec.py"
    global LEGACY
    kept, LEGACY = LEGACY, ("", "")
    try:
        assert any("splits on '|'" in hit for hit in _signature_readers(spec_py))
    finally:
        LEGACY = kept


def _publish_da(tmp_path, monkeypatch):
    """A store with a DA snapshot published the way the command line and the Organiser page publish."""
    from leaderboard.human.qc import simulate_judgments
    from leaderboard.usecases.publish import PublishOptions, publish
    store = fresh_store(tmp_path, monkeypatch)
    frame = simulate_judgments(6, random_share=0.2, n_systems=4, n_segments=30, seed=5, lp="cs-en")
    frame["campaign"] = "c"
    store.load_judgments(frame, file_name="c.csv", input_format="canonical")
    publish(store, "c", "olga", PublishOptions(qc="paired-t", n_resamples=20))
    return store


def test_published_snapshots_store_a_spec_that_renders_their_signature(tmp_path, monkeypatch):
    from leaderboard.human.spec import RankingSpec, spec_from_dict
    store = _publish_da(tmp_path, monkeypatch)
    snap = store.snapshot("c", "cs-en", "adequacy", 1)
    spec = spec_from_dict(store.snapshot_artifact("c", "cs-en", "adequacy", 1, "spec"))
    assert isinstance(spec, RankingSpec) and spec.qc == "paired-t" and spec.resamples == 20
    systems = snap["ranking"]["systems"]
    judged = store.judgments("c", "cs-en", "adequacy")
    assert spec.signature(systems=len(systems), segments=int(judged["segment"].nunique()),
                          judgments=sum(s["n_all"] for s in systems)) == snap["signature"]


@pytest.mark.parametrize("page, params", [
    ("leaderboard.py", {}), ("heatmap.py", {}), ("qc.py", {}),
    ("system.py", {"system": "sys0"}), ("system.py", {"system": "sys0", "tab": "Head to head"})])
def test_pages_of_a_snapshot_with_a_spec_never_call_the_legacy_reader(tmp_path, monkeypatch, page, params):
    from streamlit.testing.v1 import AppTest

    import leaderboard.human.spec as spec_module
    _publish_da(tmp_path, monkeypatch)
    calls = []

    def refuse(signature):
        calls.append(signature)
        raise AssertionError("legacy_spec called for a snapshot that stores its spec")
    monkeypatch.setattr(spec_module, "legacy_spec", refuse)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in {"campaign": "c", "lp": "cs-en", **params}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(str(PACKAGE / "webapp" / "pages" / page)).run()
    assert not at.exception, at.exception
    assert calls == []
    text = " ".join(c.value for c in at.caption) + " ".join(m.value for m in at.markdown)
    if page in ("leaderboard.py", "heatmap.py"):  # the spec's test and QC are what the captions say
        assert "paired-t" in text or "rank-sum" in text.replace("\\", "")


def test_a_snapshot_stored_before_specs_goes_through_the_legacy_reader_only(tmp_path, monkeypatch):
    """The other side: without the artifact the legacy reader is the one that answers, and gives the spec
    the ranking was made with."""
    import leaderboard.human.spec as spec_module
    from leaderboard.human.ranking import rank_result
    from leaderboard.human.qc import simulate_judgments
    frame = simulate_judgments(6, random_share=0.2, n_systems=4, n_segments=30, seed=5, lp="cs-en")
    made = rank_result(frame, qc="paired-t", qc_alpha=0.1, n_resamples=0, exclude_systems=["sys3"]).rankings[0]
    real, calls = spec_module.legacy_spec, []

    def counting(signature):
        calls.append(signature)
        return real(signature)
    monkeypatch.setattr(spec_module, "legacy_spec", counting)
    ranking = made.to_dict()
    assert spec_module.snapshot_spec(None, ranking) == made.spec and calls == [made.signature]
    assert spec_module.snapshot_spec(made.spec.to_dict(), ranking) == made.spec and len(calls) == 1


@pytest.mark.parametrize("make", ["mqm", "waves", "published"])
def test_every_kind_of_ranking_carries_a_spec_that_renders_its_signature(make, tmp_path, monkeypatch):
    """MQM, WMT25 two-wave and published-table rankings: a spec of their own, JSON round trip, the
    signature they wrote rendered back from it (and, for old snapshots, read back by the legacy reader)."""
    import numpy as np
    import pandas as pd

    from leaderboard.human.spec import legacy_spec, spec_from_dict
    rng = np.random.default_rng(3)
    if make == "mqm":
        from leaderboard.expert.ranking import mqm_spec, rank_segments
        seg = pd.DataFrame({"system": np.repeat(["a", "b", "c"], 20), "segment": np.tile(np.arange(20), 3).astype(str),
                            "mqm": rng.exponential(2, 60)})
        options = {"test": "approx-randomisation", "trials": 300, "seed": 4, "n_resamples": 50, "alpha": 0.01}
        ranking = rank_segments(seg, lp="en-de", raters=2, annotations=60, **options)
        spec = mqm_spec(**options)
        rendered = spec.signature(systems=3, segments=20, raters=2, annotations=60)
    elif make == "waves":
        from leaderboard.human.waves import rank_waves
        rows = [{"lp": "en-de", "system": s, "segment": str(i), "wave": w, "score": float(rng.integers(0, 100))}
                for s in ("a", "b", "c") for i in range(15) for w in (1, 2)]
        made = rank_waves(pd.DataFrame(rows))[0]
        ranking, spec = made.to_dict(), made.spec
        rendered = spec.signature(systems=3, segments=15, judgments=90)
    else:
        from leaderboard.publish.published_tables import published_spec, results_rankings
        frame = pd.DataFrame({"lp": "cs-uk", "system": ["A", "B"], "position": [1, 2], "ave": [80.0, 70.0],
                              "ave_z": [0.2, -0.1], "h": [0.9, 0.1], "n": [100, 100], "rank_lo": [1, 2],
                              "rank_hi": [1, 2], "cluster": [1, 2], "wins": [1, 0]})
        ranking = results_rankings(frame, "/x/WMT23.results.txt")[0]
        spec = published_spec("/x/WMT23.results.txt")
        rendered = spec.signature(systems=2)
    assert rendered == ranking["signature"]
    assert spec_from_dict(spec.to_dict()) == spec
    assert legacy_spec(ranking["signature"]) == spec
    if make == "published":  # stored with the snapshot
        from leaderboard.publish.snapshots import publish_published_tables
        store = fresh_store(tmp_path, monkeypatch)
        publish_published_tables(store, "t", [ranking], "olga", spec=spec)
        assert spec_from_dict(store.snapshot_artifact("t", "cs-uk", "adequacy", 1, "spec")) == spec
