"""The Metrics page correlates metrics with the published ranking's own basis (issue 39.4).

A campaign collected in the app (``collect create --from-primaries`` and ``collect simulate``, two of
eight annotators random clickers) stores raw scores only. Its segment-level human side must be the
ranking's: after its worker QC, standardised as it standardised. The page's system- and segment-level
correlations must then be finite and equal to ``mtlb correlate`` on the same snapshot
(``mtlb published --format json`` / ``--format segments``), and the segment-level Pearson equal to
scipy's over those cells.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from collecting import write_testset
from leaderboard.cli import main

LP = "de-en"
QUALITY = {"careful": 0.05, "steady": 0.2, "hasty": 0.35, "sloppy": 0.5, "broken": 0.7}


def _run(capsys, *argv: str, parse: bool = True):
    capsys.readouterr()
    assert main(list(argv)) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    return json.loads(out) if parse else out


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    import sacrebleu
    folder = tmp_path_factory.mktemp("collected")
    files = write_testset(folder / "files", n_lines=40, systems=QUALITY, seed=5, lp=LP)
    db = ["--database-url", f"sqlite:///{folder / 'mtlb.sqlite'}"]
    capsys = _Capture()
    with capsys:
        _run(capsys, "testset", "add", "--campaign", "app", "--lp", LP, "--source", str(files["src"]),
             "--ref", str(files["ref"]), *db, "--json")
        for path in files["hyps"]:
            team = path.name.split(".hyp.")[1].split(".")[0]
            assert main(["team", "add", team, "--verified", *db]) == 0
            _run(capsys, "outputs", "submit", str(path), "--campaign", "app", "--lp", LP, "--team", team,
                 "--primary", *db, "--json")
        _run(capsys, "collect", "create", "--campaign", "app", "--lp", LP, "--protocol", "da", "--from-primaries",
             "--hits", "8", "--seed", "3", *db, "--json")
        _run(capsys, "collect", "simulate", "--campaign", "app", "--lp", LP, "--annotators", "8",
             "--random-share", "0.25", "--seed", "2", *db, "--json")
        import sys
        from leaderboard.accounts.auth import create_user
        from leaderboard.storage import Store
        store = Store(db[1])
        create_user(store, "olga", "organiser-pass", "organiser")
        old_stdin, sys.stdin = sys.stdin, io.StringIO("organiser-pass\n")
        try:  # as an organiser publishes: the service's default worker QC
            published = _run(capsys, "publish", "--campaign", "app", "--user", "olga", "--password-stdin", *db,
                             "--json")
        finally:
            sys.stdin = old_stdin
        assert "qc:paired-t@0.05" in published["published"][0]["signature"]
        snap_path, seg_path = folder / "snapshot.json", folder / "segments.csv"
        snap_path.write_text(_run(capsys, "published", "--campaign", "app", "--lp", LP, *db, parse=False))
        seg_path.write_text(_run(capsys, "published", "--campaign", "app", "--lp", LP, "--format", "segments", *db,
                                 parse=False))
    # a metric developer's segment scores: sentence chrF of every line (sacrebleu)
    ref = files["ref"].read_text(encoding="utf-8").splitlines()
    rows = ["metric,lp,system,segment,score"]
    for path in files["hyps"]:
        team = path.name.split(".hyp.")[1].split(".")[0]
        for i, (hyp, r) in enumerate(zip(path.read_text(encoding="utf-8").splitlines(), ref), start=1):
            rows.append(f"SentChrF,{LP},{team},{i},{sacrebleu.sentence_chrf(hyp, [r]).score!r}")
    sub_path = folder / "sentchrf.csv"
    sub_path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    from metrics.submissions import read_submission
    sub = read_submission(sub_path)
    store.save_metric_submissions("app", sub[["lp", "system", "segment", "score"]].assign(metric="SentChrF"),
                                  level="segment", public=True)
    return {"folder": folder, "db": db, "store": store, "snapshot": snap_path, "segments": seg_path,
            "submission": sub_path, "scores": sub}


class _Capture:
    """capsys for a module-scoped fixture: stdout captured around each command."""

    def __enter__(self):
        import sys
        self._old, self._buf = sys.stdout, io.StringIO()
        sys.stdout = self._buf
        return self

    def __exit__(self, *exc):
        import sys
        sys.stdout = self._old

    def readouterr(self):
        class Out:
            pass
        out = Out()
        out.out, out.err = self._buf.getvalue(), ""
        self._buf.seek(0)
        self._buf.truncate()
        return out


def test_collected_campaign_is_raw_only_and_the_ranking_dropped_the_clickers(collected):
    judgments = collected["store"].judgments("app", LP)
    assert len(judgments) and judgments["z"].isna().all()  # what the page used to average: nothing
    # collected from the stored test set: segment ids are its lines, so segment scores pair with them
    assert collected["store"].campaign_info("app")["segments_are_lines"]
    segments = pd.read_csv(collected["segments"])
    assert np.isfinite(segments["z"]).all() and len(segments) == 5 * 40
    qc = collected["store"].snapshot_artifact("app", LP, "adequacy", 1, "qc")
    assert qc["filtered_here"] and qc["summary"]["workers_kept"] < qc["summary"]["workers_total"]
    from leaderboard.publish.artifacts import payload_frame
    report = payload_frame(qc["report"])
    kept = set(report.loc[report["passed"].astype(bool), "worker"])
    scoring = judgments[judgments["item_type"].astype(str).isin(["SYSTEM", "REPEAT"])]
    # the basis holds the scoring items of the workers the ranking kept, not the flagged clickers'
    assert segments["n"].sum() == scoring["worker"].isin(kept).sum() < len(scoring)


def test_metrics_page_equals_mtlb_correlate_on_the_same_snapshot(collected, monkeypatch, capsys):
    from test_app_pages import run_app, shown_table
    from leaderboard.webapp.pages.metrics import SEGMENT_COLUMNS
    from test_app_metrics import corr_table, split_intervals
    cli = _run(capsys, "correlate", "--human", str(collected["snapshot"]), "--segment-scores",
               str(collected["submission"]), "--human-segments", str(collected["segments"]), "--lp", LP, "--json")
    monkeypatch.setenv("MTLB_DATA_DIR", str(collected["folder"]))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    at = run_app("metrics.py", params={"campaign": "app", "lp": LP})
    table = corr_table(at)
    label = next(m for m in table.index if m.startswith("SentChrF #"))
    row = next(m for m in cli["metrics"] if m["metric"] == "SentChrF")
    for stat in ("pearson", "spearman", "kendall"):
        shown = [table.loc[label, stat], table.loc[label, f"{stat}_ci_lo"], table.loc[label, f"{stat}_ci_hi"]]
        assert np.isfinite(shown).all()
        assert shown == pytest.approx([row[stat], *row[f"{stat}_ci"]], abs=5e-4), stat
    seg_page = split_intervals(shown_table(at, SEGMENT_COLUMNS, "darr_tau")).set_index("metric").loc[label]
    seg_cli = next(r for r in cli["segment_level"] if r["metric"] == "SentChrF")
    for key in ("darr_tau", "darr_tau_ci_lo", "darr_tau_ci_hi", "pearson", "pearson_ci_lo", "pearson_ci_hi",
                "kendall_item", "kendall_item_ci_lo", "kendall_item_ci_hi"):
        assert np.isfinite(seg_page[key]) and seg_page[key] == pytest.approx(seg_cli[key], abs=5e-4), key
    assert seg_page["cells"] == seg_cli["cells"] == 5 * 40
    # and the segment-level Pearson is scipy's over the ranking's per-segment z
    human = pd.read_csv(collected["segments"]).astype({"segment": str})
    cells = human.merge(collected["scores"].astype({"segment": str}), on=["system", "segment"])
    assert seg_page["pearson"] == pytest.approx(stats.pearsonr(cells["z"], cells["score"]).statistic, abs=5e-4)



def test_one_bootstrap_for_the_published_correlations():
    """The baseline correlations stored with a snapshot and the Metrics page's correlations are one call
    (metrics.validation.correlate_with_ranking) with one set of constants; the CLI's defaults agree."""
    from pathlib import Path
    import re
    from leaderboard.cli import correlate
    from metrics import validation
    root = Path(__file__).resolve().parents[1] / "leaderboard"
    for name in ("publish/artifacts.py", "webapp/metrics_views.py"):
        text = (root / name).read_text(encoding="utf-8")
        assert "correlate_with_ranking(" in text and "correlate_lp(" not in text, name
        assert not re.search(r"(resamples|seed)\s*=\s*\d", text), name  # no literal bootstrap settings
    assert (correlate.N_RESAMPLES, correlate.SEED) == (validation.N_RESAMPLES, validation.SEED)


def test_human_segment_file_is_refused_with_line_and_column(tmp_path):
    from leaderboard.errors import InputError
    from metrics.sysscores_tsv import read_human_segment_scores
    path = tmp_path / "segments.csv"
    path.write_text("system,segment,raw,z,n\nA,1,50,0.1,2\nA,2,fifty,0.2,1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_human_segment_scores(path)
    assert (err.value.line, err.value.column) == (3, "raw") and "fifty" in str(err.value)
    path.write_text("system,segment,z\nA,1,0.1\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing column.*raw"):
        read_human_segment_scores(path)
    path.write_text("system,segment,raw,z\nA,1,50,\nB,1,40,-0.3\n", encoding="utf-8")
    frame = read_human_segment_scores(path)
    assert frame["z"].isna().tolist() == [True, False] and frame["raw"].tolist() == [50.0, 40.0]
