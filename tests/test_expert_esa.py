"""ESA spans (Appraise export), the WMT24 per-domain Stouffer test, span marking, and storage of both expert kinds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.human.domains import domain_of
from leaderboard.ingest.esa import read_esa_spans
from leaderboard.human.significance import stouffer_signed_rank_matrix
from leaderboard.expert.spans import mark_spans


def test_spans_of_the_wmt24_export(shared):
    spans = read_esa_spans(str(shared / "wmt24-esa" / "esa_generalMT2024_wave3.csv"), "wmt24-esa")
    assert len(spans) == 6036                      # every span of the file, none dropped
    assert spans["item_type"].value_counts().to_dict() == {"BAD": 3237, "TGT": 2799}
    assert set(spans["severity"]) == {"major", "minor", "undecided"}
    missing = spans["span_start"].isna()
    assert 0 < missing.sum() < len(spans) and spans.loc[missing, "span_end"].isna().all()
    first = spans.iloc[0]                          # line 6: {"start_i":8,"end_i":11,"severity":"minor"}
    assert (first["line"], first["span_start"], first["span_end"], first["severity"]) == (6, 8, 12, "minor")
    assert set(spans["lp"]) == {"en-ja", "en-zh"}


def test_bad_span_json(tmp_path):
    path = tmp_path / "esa.csv"
    path.write_text('a,S,1,TGT,eng,deu,50,doc,False,"[{""start_i"":5,""end_i"":2}]",1,2\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_esa_spans(str(path), "c")
    assert err.value.line == 1 and "not a valid range" in err.value.message
    path.write_text('a,S,1,TGT,eng,deu,50,doc,False,[{oops,1,2\n', encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        read_esa_spans(str(path), "c")


def test_domain_of():
    assert domain_of("test-en-news_seattle.123") == "news"
    assert domain_of("test-en-speech_-_31PoDRu28_003") == "speech"
    assert domain_of("ende-tutorial1") == "tutorial1"


def test_stouffer_against_scipy():
    """The WMT24 organisers' combination: per domain scipy's default two-sided wilcoxon, then
    Z = sum(ppf(1 - p_d)) / sqrt(D) and p = 1 - cdf(Z), the same for both directions."""
    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=(3, 60)) * 10 + np.array([[3.0], [0.0], [0.0]]))
    domains = ["news"] * 25 + ["social"] * 35
    p = stouffer_signed_rank_matrix(scores, domains)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        zs = []
        for dom in ("news", "social"):
            cols = [c for c, d in enumerate(domains) if d == dom]
            zs.append(stats.norm.ppf(1 - stats.wilcoxon(scores[i, cols], scores[j, cols]).pvalue))
        expected = 1 - stats.norm.cdf(sum(zs) / np.sqrt(2))
        assert p[i, j] == pytest.approx(expected, rel=1e-12) and p[j, i] == p[i, j]


def test_mark_spans_escapes_everything():
    html = mark_spans("<b>x</b> & y", [(0, 3, "major"), (None, None, "minor")])
    assert "<b>" not in html and "&lt;b&gt;" in html and "&amp; y" in html
    assert html.count("<mark") == 1 and "minor error without a location" in html


def test_ingest_stores_mqm_and_esa(shared, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.storage import Store, default_url
    from leaderboard.storage.expert import annotation_rows, mqm_errors, outputs
    from leaderboard.expert.scoring import segment_scores, system_scores
    assert main(["ingest", str(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"), "--campaign", "ted-mqm"]) == 0
    assert main(["ingest", str(shared / "wmt24-esa" / "esa_generalMT2024_wave3.csv"), "--campaign", "esa"]) == 0
    # a second import of the same file is refused and writes nothing
    assert main(["ingest", str(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"), "--campaign", "ted-mqm"]) == 2
    store = Store(default_url())
    errors = mqm_errors(store, "ted-mqm")
    assert len(errors) == 8435 and len(outputs(store, "ted-mqm", "en-de")) == 14 * 529
    table = system_scores(segment_scores(errors)).set_index("system")
    assert f"{table.loc['ref', 'mqm']:.2f}" == "0.91" and f"{table.loc['Nemo', 'mqm']:.2f}" == "2.14"
    spans = annotation_rows(store, "esa", assessment="esa")
    # the spans of the systems' outputs (TGT rows: 2,799) in usable documents (2,686); the 3,237 spans of the
    # degraded BAD copies mark errors planted in another text, and the 113 of ratings in documents marked
    # #dup or #incomplete would merge with the rating that counts: neither is stored against the outputs
    assert len(spans) == 2686
    assert store.judgments("esa")["assessment"].eq("esa").all()
