"""Charts: colour-blind-safe colours, axis titles on every chart, scatter labels that never overlap."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from leaderboard.webapp import charts

# Okabe & Ito (2008), "Color Universal Design": the eight colours as published
OKABE_ITO_PUBLISHED = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}


def _ranking(n: int = 5) -> dict:
    names = [f"sys-{i}" for i in range(n)]
    pvalues = {a: {b: (0.001 if i < j else 0.9) for j, b in enumerate(names) if b != a} for i, a in enumerate(names)}
    return {"lp": "cs-en", "signature": "da|test:mwu-greater|p:0.05",
            "systems": [{"system": s, "ave_z": 1 - 0.2 * i, "ave": 70 - i, "n": 10, "rank_lo": i + 1,
                         "rank_hi": i + 1, "cluster": i + 1} for i, s in enumerate(names)], "pvalues": pvalues}


def _figures() -> dict:
    rng = np.random.default_rng(0)
    seg = pd.DataFrame({"system": np.repeat(["a", "b"], 30), "segment": np.tile(np.arange(30).astype(str), 2),
                        "z": rng.normal(size=60), "raw": rng.uniform(0, 100, 60)})
    pairs = seg[seg.system == "a"].merge(seg[seg.system == "b"], on="segment", suffixes=("_a", "_b"))
    scatter = pd.DataFrame({"system": list("abcdef"), "BLEU": [30, 31, 32, 20, 25, 40],
                            "human": [0.1, 0.12, 0.11, -0.3, 0.0, 0.4]})
    table = pd.DataFrame({"metric": ["BLEU", "chrF"], "pearson": [0.9, 0.8], "pearson_ci_lo": [0.8, 0.6],
                          "pearson_ci_hi": [0.95, 0.9], "cluster": [1, 2]})
    gains = pd.DataFrame({"lp": ["cs-en"], "assessment": ["adequacy"], "from": ["2021"], "to": ["2022"],
                          "best_difference": [1.0], "delta": [2.0], "gain": [3.0]})
    parts = pd.DataFrame({"category": ["Accuracy", "Fluency"], "severity": ["major", "minor"],
                          "per_segment": [1.0, 0.5]})
    tracks = pd.DataFrame({"year": ["2021", "2022"], "ave_z": [0.1, 0.2], "group": ["cs-en", "cs-en"]})
    return {
        "heatmap": charts.heatmap_figure(_ranking()),
        "distribution": charts.distribution_figure(seg, "a"),
        "head_to_head": charts.head_to_head_figure(pairs, "a", "b"),
        "scatter": charts.metric_scatter(scatter, "BLEU", "cs-en"),
        "williams": charts.williams_figure({"BLEU": {"chrF": 0.01}, "chrF": {"BLEU": 0.9}}),
        "qc": charts.qc_figure(pd.DataFrame({"what": ["workers"], "kept": [3], "removed": [1]})),
        "years": charts.year_lines_figure(tracks, "year", "ave_z", "group", "t", x_title="year", y_title="Ave z"),
        "correlation": charts.correlation_figure(table),
        "gain": charts.gain_figure(gains),
        "gain_bars": charts.gain_bars(gains),
        "mqm": charts.mqm_breakdown_figure(parts),
    }


@pytest.mark.parametrize("name", list(_figures()))
def test_every_chart_has_axis_titles_and_safe_colours(name):
    fig = _figures()[name]
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text, name
    assert {c.upper() for c in fig.layout.colorway} <= OKABE_ITO_PUBLISHED
    for trace in fig.data:
        colour = getattr(getattr(trace, "marker", None), "color", None)
        for c in ([colour] if isinstance(colour, str) else list(colour) if colour is not None
                  and not isinstance(colour, (int, float)) and np.ndim(colour) else []):
            if isinstance(c, str):
                grey = len({c[1:3], c[3:5], c[5:7]}) == 1
                assert c.upper() in OKABE_ITO_PUBLISHED or grey, (name, c)


def _boxes(x, y, labels, positions, width_px=900, height_px=330, char_px=6.2, line_px=14):
    """Pixel boxes of the placed labels, written out independently of the implementation's loop."""
    px = (x - x.min()) / (np.ptp(x) * 1.1) * width_px
    py = (y - y.min()) / (np.ptp(y) * 1.1) * height_px
    out = []
    for xi, yi, text, pos in zip(px, py, labels, positions):
        if pos is None:
            continue
        w = char_px * len(text) + 4
        out.append({"top center": (xi - w / 2, yi + 6, xi + w / 2, yi + 6 + line_px),
                    "bottom center": (xi - w / 2, yi - 6 - line_px, xi + w / 2, yi - 6),
                    "middle right": (xi + 6, yi - line_px / 2, xi + 6 + w, yi + line_px / 2),
                    "middle left": (xi - 6 - w, yi - line_px / 2, xi - 6, yi + line_px / 2)}[pos])
    return out


def test_scatter_labels_never_overlap_and_crowded_ones_are_left_to_hover():
    rng = np.random.default_rng(1)
    # a tight crowd of 12 systems (as BLEU vs human on WMT22 cs-en) plus two outliers
    x = np.r_[rng.normal(30, 0.3, 12), 10.0, 50.0]
    y = np.r_[rng.normal(0.0, 0.01, 12), -0.5, 0.5]
    labels = [f"System-Name-{i}" for i in range(14)]
    positions = charts.label_positions(x, y, labels)
    boxes = _boxes(x, y, labels, positions)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
    assert positions[12] is not None and positions[13] is not None  # isolated points are labelled
    assert sum(p is None for p in positions[:12]) >= 6  # most of the crowd: hover only
    fig = charts.metric_scatter(pd.DataFrame({"system": labels, "BLEU": x, "human": y}), "BLEU", "cs-en")
    written = [t for t in fig.data[0].text if t]
    assert len(written) == sum(p is not None for p in positions)
    assert [p for p, t in zip(fig.data[0].textposition, fig.data[0].text) if t] == [p for p in positions if p]
    assert "hover for names" in fig.layout.title.text
    # every system keeps its hover label
    assert list(fig.data[0].customdata) == labels


def test_significance_colours_darken_with_smaller_p():
    lum = [charts._text_on(c) for _, _, c in charts.P_LEVELS]
    assert lum[0] == "#ffffff" and lum[-1] == "#000000"  # darkest shade for p < 0.001
    from leaderboard.human.spec import GIVEN_Z, MqmSpec
    assert charts.test_short(dataclasses.replace(GIVEN_Z, test="mwu-greater")) == "one-sided rank-sum"
    assert charts.test_short(MqmSpec(weights="google-mqm", test="ar-greater-paired", alpha=0.05,
                                      cluster_rule="organisers")) == "approx. randomisation"
    assert charts.test_short(None) == "p-value"


def test_head_to_head_axes_span_the_scores_and_keep_equal_scales_without_stretching():
    """Issue 42.9: the x-axis was far too wide (equal scales widened its range to fill the page); both axes
    now span the plotted scores, and the plot area, not the range, gives way (seen drawn in the browser
    test of the System page)."""
    rng = np.random.default_rng(3)
    pairs = pd.DataFrame({"segment": [str(i) for i in range(50)], "z_a": rng.normal(0.5, 0.8, 50),
                          "z_b": rng.normal(0.0, 1.0, 50)})
    layout = charts.head_to_head_figure(pairs, "a", "b").layout
    lo = min(pairs.z_a.min(), pairs.z_b.min())
    hi = max(pairs.z_a.max(), pairs.z_b.max())
    for axis in (layout.xaxis, layout.yaxis):
        a, b = axis.range
        assert a <= lo and b >= hi and b - a <= 1.25 * (hi - lo)
        assert axis.constrain == "domain"
    assert layout.yaxis.scaleanchor == "x"
