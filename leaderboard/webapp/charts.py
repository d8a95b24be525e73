"""Plotly figure builders of the web app: plain data in, figures out (no Streamlit, no I/O)."""

from __future__ import annotations

import html
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..publish.render import is_human_entry, test_short

#: Okabe & Ito's colour-blind-safe palette (Okabe and Ito 2008; plotly's ``Safe`` is of the same kind):
#: every chart of the app draws its categories in these colours, in this order
OKABE_ITO: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442",
                              "#000000")
BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE = OKABE_ITO[:6]
GREY = "#999999"
# significance shades as in the WMT findings heat maps: darker = smaller p; one hue whose lightness
# carries the level, so it reads the same with any colour vision and in grey print
P_LEVELS: tuple[tuple[float, str, str], ...] = (
    (0.001, "p < 0.001", "#08306b"),
    (0.01, "p < 0.01", "#2b7bba"),
    (0.05, "p < 0.05", "#9ecae1"),
)
NOT_SIGNIFICANT = ("not significant", "#f4f4f4")
SAME = ("same system", "#bdbdbd")


def plain(text) -> str:
    """User text for a plotly label: plotly renders a subset of HTML (``<b>``, ``<a href>``, entities) in
    titles, ticks, legends and hover labels, so ``<`` ``>`` ``&`` are written as entities and show literally."""
    return html.escape(str(text), quote=False)


def plain_all(values: Iterable) -> list[str]:
    return [plain(v) for v in values]


def _layout(fig: go.Figure, title: str, height: int | None = None) -> go.Figure:
    fig.update_layout(title={"text": title, "x": 0.0, "xanchor": "left"}, template="plotly_white",
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=height, colorway=list(OKABE_ITO))
    return fig


MT_COLOUR, HUMAN_COLOUR = "#0072b2", "#d55e00"  # Okabe-Ito blue / vermilion: safe for colour-blind readers


def system_labels(ranking: Mapping) -> list[str]:
    """The ranking's system names in table order as the pages show them: a dagger after each human
    translation (as the Leaderboard marks it)."""
    return [str(s["system"]) + (" †" if is_human_entry(s) else "") for s in ranking["systems"]]


def ranking_figure(ranking: Mapping) -> go.Figure:
    """Ave z (MQM) per system with its 95% interval as an error bar, best on top, clusters shaded
    alternately (the table's cluster lines); human translations as open diamonds in their own colour."""
    systems = list(ranking["systems"])
    names = plain_all(system_labels(ranking))
    fig = go.Figure()
    clusters = [s.get("cluster") for s in systems]
    # shapes in one layout update: plotly's add_hrect / add_hline are ~20 ms each
    shapes = []
    start = 0
    band = 0
    for i in range(1, len(systems) + 1):
        if i == len(systems) or clusters[i] != clusters[start]:
            if band % 2 == 0:
                shapes.append({"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": start - 0.5,
                               "y1": i - 0.5, "fillcolor": "#e8eef7", "line": {"width": 0}, "layer": "below"})
            if i < len(systems):
                shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": i - 0.5,
                               "y1": i - 0.5, "line": {"color": "#555", "width": 1, "dash": "dot"}})
            start, band = i, band + 1
    fig.update_layout(shapes=shapes)
    mqm = bool(systems) and "mqm" in systems[0]
    key, label = ("mqm", "MQM (error points per segment, lower is better)") if mqm else \
        ("ave_z", "Ave z (standard deviations of each worker's scores)")
    short = "MQM" if mqm else "Ave z"
    for human in (False, True):
        idx = [i for i, s in enumerate(systems) if is_human_entry(s) == human]
        if not idx:
            continue
        cis = [systems[i].get(f"{key}_ci") for i in idx]
        x = [systems[i][key] for i in idx]
        hover = []
        for i, ci in zip(idx, cis):
            s = systems[i]
            hover.append(f"{plain(s['system'])}{' (human translation)' if human else ''}<br>rank "
                         f"{s.get('rank_lo')}–{s.get('rank_hi')}<br>{short} {s[key]:.3f}"
                         + (f" (95% CI {ci[0]:.3f} to {ci[1]:.3f})" if ci else "")
                         + (f"<br>Ave {s['ave']:.1f}" if s.get("ave") is not None else "") + f"<br>N {s.get('n')}")
        error = None
        if any(cis):
            error = {"type": "data", "symmetric": False, "color": HUMAN_COLOUR if human else MT_COLOUR,
                     "thickness": 1.5, "width": 4,
                     "array": [ci[1] - v if ci else 0 for ci, v in zip(cis, x)],
                     "arrayminus": [v - ci[0] if ci else 0 for ci, v in zip(cis, x)]}
        fig.add_trace(go.Scatter(
            x=x, y=idx, mode="markers", error_x=error, name="human translation" if human else "MT system",
            marker={"size": 11, "color": HUMAN_COLOUR if human else MT_COLOUR,
                    "symbol": "diamond-open" if human else "circle", "line": {"width": 2 if human else 0}},
            hovertext=hover, hoverinfo="text"))
    fig.update_yaxes(tickvals=list(range(len(systems))), ticktext=names, autorange="reversed", title="system")
    fig.update_xaxes(title=label, zeroline=True, zerolinecolor="#999")
    with_ci = any(s.get(f"{key}_ci") for s in systems)
    fig.update_layout(legend={"orientation": "h", "y": -0.12 if with_ci else -0.1})
    return _layout(fig, f"{plain(ranking.get('lp', ''))} — {short} by system"
                   + (" with 95% bootstrap intervals" if with_ci else "") + " (shaded bands = clusters)",
                   height=max(280, 34 * len(systems) + 130))


def rank_shares_figure(ranking: Mapping) -> go.Figure | None:
    """Rank stability: for each system (rows, in ranking order) the share of bootstrap resamples in which it
    takes each rank (columns); None when the snapshot has no rank shares."""
    systems = [s for s in ranking["systems"] if s.get("rank_shares")]
    if not systems or len(systems) != len(ranking["systems"]):
        return None
    z = np.array([s["rank_shares"] for s in systems], dtype=float) * 100
    names = plain_all(system_labels(ranking))
    ranks = list(range(1, z.shape[1] + 1))
    text = [[f"{v:.0f}" if v >= 1 else ("<1" if v > 0 else "") for v in row] for row in z]
    fig = go.Figure(go.Heatmap(
        z=z, x=ranks, y=names, colorscale="Blues", zmin=0, zmax=100, text=text, texttemplate="%{text}",
        colorbar={"title": {"text": "% of resamples"}},
        hovertemplate="%{y}: rank %{x} in %{z:.1f}% of resamples<extra></extra>"))
    fig.update_xaxes(title="rank (1 = best)", tickvals=ranks, side="bottom")
    fig.update_yaxes(title="system", autorange="reversed")
    return _layout(fig, f"{plain(ranking.get('lp', ''))} — rank stability: % of bootstrap resamples at each rank",
                   height=max(280, 30 * len(systems) + 130))


def mqm_breakdown_figure(parts: pd.DataFrame) -> go.Figure:
    """Stacked bars: MQM weight per rated segment by error category, one bar segment per severity."""
    fig = go.Figure()
    colours = {"major": VERMILLION, "minor": ORANGE, "neutral": SKY}
    for i, (severity, part) in enumerate(parts.groupby("severity", sort=True)):
        fig.add_trace(go.Bar(x=plain_all(part["category"]), y=part["per_segment"], name=plain(severity),
                             marker_color=colours.get(str(severity).lower(), OKABE_ITO[i % len(OKABE_ITO)])))
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title="error category")
    fig.update_yaxes(title="MQM weight per rated segment (penalty points)")
    return _layout(fig, "Where the MQM score comes from")


def significance_matrix(ranking: Mapping) -> tuple[list[str], np.ndarray]:
    """Systems in table order and the matrix P[i, j] = p(row i better than column j) (NaN if absent)."""
    names = [s["system"] for s in ranking["systems"]]
    pvalues = ranking.get("pvalues") or {}
    mat = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        row = pvalues.get(a) or {}
        for j, b in enumerate(names):
            value = row.get(b)
            if i != j and value is not None:
                mat[i, j] = float(value)
    return names, mat


def significance_level(p: float) -> int:
    """0 = p < 0.001, 1 = p < 0.01, 2 = p < 0.05, 3 = not significant (or untested)."""
    for k, (cut, _, _) in enumerate(P_LEVELS):
        if p < cut:
            return k
    return len(P_LEVELS)


def significance_levels(mat: np.ndarray) -> np.ndarray:
    """:func:`significance_level` of every cell of a p-value matrix (NaN, untested: not significant)."""
    levels = np.full(mat.shape, len(P_LEVELS))
    finite = np.isfinite(mat)
    levels[finite] = np.select([mat[finite] < cut for cut, _, _ in P_LEVELS],
                               list(range(len(P_LEVELS))), default=len(P_LEVELS))
    return levels


def heatmap_figure(ranking: Mapping, spec: Any = None) -> go.Figure:
    """Pairwise significance heat map (as Graham et al. 2017, Fig. 3): row system beats column system
    (``spec``: the ranking's :mod:`leaderboard.human.spec`, naming the test in the colour bar)."""
    names, mat = significance_matrix(ranking)
    names = system_labels(ranking)  # human translations marked, as in the table
    n = len(names)
    levels = significance_levels(mat).astype(float)
    np.fill_diagonal(levels, len(P_LEVELS) + 1)
    colours = [c for _, _, c in P_LEVELS] + [NOT_SIGNIFICANT[1], SAME[1]]
    k = len(colours)
    scale = []
    for i, c in enumerate(colours):
        scale += [[i / k, c], [(i + 1) / k, c]]
    labels = [lab for _, lab, _ in P_LEVELS] + [NOT_SIGNIFICANT[0], SAME[0]]
    text = np.where(np.isfinite(mat), np.vectorize(lambda v: f"p = {v:.2g}")(np.nan_to_num(mat)), "")
    custom = np.array([[labels[int(v)] for v in row] for row in levels]) if n else np.empty((0, 0))
    fig = go.Figure(go.Heatmap(
        z=levels, x=plain_all(names), y=plain_all(names), zmin=-0.5, zmax=k - 0.5, colorscale=scale, xgap=1, ygap=1,
        text=text, customdata=custom,
        hovertemplate="%{y} better than %{x}<br>%{customdata}<br>%{text}<extra></extra>",
        colorbar={"tickvals": list(range(k)), "ticktext": labels, "title": test_short(spec)},
    ))
    fig.update_yaxes(autorange="reversed", title="better system (row)")
    fig.update_xaxes(title="worse system (column)", tickangle=-45)
    return _layout(fig, f"{plain(ranking.get('lp', ''))} — is the row system significantly better than the column system?",
                   height=max(360, 34 * n + 200))


def distribution_figure(seg: pd.DataFrame, system: str, value: str = "z") -> go.Figure:
    """Histogram of the system's per-segment scores over the pooled segments of every system."""
    fig = go.Figure()
    lo, hi = distribution_range(seg[value], value)
    size = (hi - lo) / 40
    bins = {"start": lo, "end": hi + size, "size": size}  # one set of bins for both, so the bars line up
    fig.add_trace(go.Histogram(x=seg[value], name="all systems", histnorm="probability density",
                               marker_color="#c7c7c7", opacity=0.7, xbins=bins))
    fig.add_trace(go.Histogram(x=seg.loc[seg["system"] == system, value], name=plain(system),
                               histnorm="probability density", marker_color=BLUE, opacity=0.75, xbins=bins))
    fig.update_layout(barmode="overlay", legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(title="segment score (" + ("z: standard deviations from the worker's mean" if value == "z"
                                                 else "raw, 0–100 points") + ")", range=[lo, hi])
    fig.update_yaxes(title="density (share of segments per unit of score)")
    return _layout(fig, f"Score distribution of {plain(system)}", height=360)


def distribution_range(values: Iterable, value: str = "z") -> tuple[float, float]:
    """The x range of :func:`distribution_figure`: the scores' own minimum and maximum with 3% room on each
    side (raw scores within 0–100); a single value or no value gets a unit-wide range around it."""
    x = np.asarray(pd.to_numeric(pd.Series(values), errors="coerce"), dtype=float)
    x = x[np.isfinite(x)]
    if not x.size:
        return (0.0, 100.0) if value == "raw" else (-1.0, 1.0)
    lo, hi = float(x.min()), float(x.max())
    pad = 0.03 * (hi - lo) if hi > lo else 0.5
    lo, hi = lo - pad, hi + pad
    if value == "raw":
        lo, hi = max(lo, 0.0), min(hi, 100.0)
        if hi <= lo:
            lo, hi = max(0.0, lo - 0.5), min(100.0, hi + 0.5)
    return lo, hi


def head_to_head_figure(pairs: pd.DataFrame, a: str, b: str, value: str = "z") -> go.Figure:
    """Per-segment scores of system a (x) against system b (y) over their common segments."""
    x, y = pairs[f"{value}_a"], pairs[f"{value}_b"]
    lo = float(np.nanmin([x.min(), y.min()])) if len(pairs) else 0.0
    hi = float(np.nanmax([x.max(), y.max()])) if len(pairs) else 1.0
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", line={"color": GREY, "dash": "dash"},
                             name="equal", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=x, y=y, mode="markers", name="segment", marker={"size": 6, "opacity": 0.6,
                                                                                "color": BLUE},
                             text=plain_all(pairs["segment"]), meta=[plain(a), plain(b)],
                             hovertemplate="segment %{text}<br>%{meta[0]} %{x:.2f}<br>%{meta[1]} %{y:.2f}"
                                           "<extra></extra>"))
    unit = "z" if value == "z" else "raw, 0–100 points"
    # both axes span the scores (5% room on each side); equal scales shrink the plot area to a square
    # ("domain") instead of stretching the x range to fill a wide page
    pad = 0.05 * (hi - lo) if hi > lo else 0.5
    span = [lo - pad, hi + pad]
    fig.update_xaxes(title=f"{plain(a)}: segment score ({unit})", range=span, constrain="domain")
    fig.update_yaxes(title=f"{plain(b)}: segment score ({unit})", range=span, scaleanchor="x", scaleratio=1,
                     constrain="domain")
    fig.update_layout(showlegend=False)
    return _layout(fig, f"{plain(a)} vs {plain(b)}: per-segment {value} scores ({len(pairs)} common segments)",
                   height=460)


def regression_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept of y on x (NaN when fewer than two distinct x)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 2 or np.ptp(x) == 0:
        return float("nan"), float("nan")
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def label_positions(x: np.ndarray, y: np.ndarray, labels: list[str], *, width_px: float = 900,
                    height_px: float = 330, char_px: float = 6.2, line_px: float = 14,
                    order: np.ndarray | None = None) -> list[str | None]:
    """Where each point's text label fits without overlapping another label or point: one of
    "top center", "bottom center", "middle right", "middle left", or None (hover only).

    Greedy in ``order`` (default: as given); boxes are estimated in pixels from the axis ranges and
    the plot size (``char_px`` per character, ``line_px`` per line)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = len(x)
    if n == 0:
        return []
    span_x = float(np.ptp(x)) or 1.0
    span_y = float(np.ptp(y)) or 1.0
    # plotly pads the axes by about 5% on each side
    px = (x - x.min()) / (span_x * 1.1) * width_px
    py = (y - y.min()) / (span_y * 1.1) * height_px
    marker = 6.0
    points = np.stack([px - marker, py - marker, px + marker, py + marker], axis=1)
    placed: list[tuple[float, float, float, float]] = []
    out: list[str | None] = [None] * n
    for i in (order if order is not None else range(n)):
        w, h = char_px * len(labels[i]) + 4, line_px
        candidates = {"top center": (px[i] - w / 2, py[i] + marker, px[i] + w / 2, py[i] + marker + h),
                      "bottom center": (px[i] - w / 2, py[i] - marker - h, px[i] + w / 2, py[i] - marker),
                      "middle right": (px[i] + marker, py[i] - h / 2, px[i] + marker + w, py[i] + h / 2),
                      "middle left": (px[i] - marker - w, py[i] - h / 2, px[i] - marker, py[i] + h / 2)}
        for position, (x0, y0, x1, y1) in candidates.items():
            if x0 < -20 or x1 > width_px + 20 or y1 > height_px + 20 or y0 < -20:
                continue
            others = np.delete(points, i, axis=0)
            hit_point = bool(((others[:, 0] < x1) & (others[:, 2] > x0) & (others[:, 1] < y1)
                              & (others[:, 3] > y0)).any())
            hit_label = any(a < x1 and c > x0 and b < y1 and d > y0 for a, b, c, d in placed)
            if not hit_point and not hit_label:
                placed.append((x0, y0, x1, y1))
                out[i] = position
                break
    return out


def metric_scatter(frame: pd.DataFrame, metric: str, lp: str, human: str = "human",
                   metric_unit: str | None = None) -> go.Figure:
    """System-level scatter: metric score (x) against human Ave z (y) with the regression line.

    Every point has a hover label; a system's name is written next to its point only where it
    overlaps no other name or point (best-ranked systems first), so crowded regions stay legible."""
    xs_all, ys_all = frame[metric].to_numpy(dtype=float), frame[human].to_numpy(dtype=float)
    names = [str(v) for v in frame["system"]]
    order = np.argsort(-np.nan_to_num(ys_all, nan=-np.inf), kind="stable")
    positions = label_positions(xs_all, ys_all, names, order=order)
    unit = metric_unit or {"BLEU": "BLEU, 0–100", "chrF": "chrF, 0–100"}.get(str(metric), "metric's own scale")
    # one trace: the names that fit are its text (at their own positions), the others are empty
    fig = go.Figure(go.Scatter(x=xs_all, y=ys_all, mode="markers+text", customdata=plain_all(names),
                               text=[plain(n) if p else "" for n, p in zip(names, positions)],
                               textposition=[p or "top center" for p in positions],
                               textfont={"size": 10, "color": "#333"},
                               marker={"size": 9, "color": BLUE}, name="system",
                               hovertemplate="%{customdata}<br>" + plain(metric) + " %{x:.4g}<br>human Ave z "
                                             "%{y:.3f}<extra></extra>"))
    slope, intercept = regression_line(xs_all, ys_all)
    if np.isfinite(slope):
        xs = np.linspace(float(np.nanmin(xs_all)), float(np.nanmax(xs_all)), 2)
        fig.add_trace(go.Scatter(x=xs, y=slope * xs + intercept, mode="lines", name="least squares",
                                 line={"color": VERMILLION}, hoverinfo="skip"))
    fig.update_xaxes(title=f"{plain(metric)} ({unit})")
    fig.update_yaxes(title="human Ave z (standardised DA score)")
    fig.update_layout(showlegend=False)
    hidden = sum(p is None for p in positions)
    note = f" — {hidden} label(s) hidden where crowded: hover for names" if hidden else ""
    return _layout(fig, f"{plain(lp)}: {plain(metric)} against human scores{note}", height=420)


def williams_figure(williams: Mapping[str, Mapping[str, float]], order: list[str] | None = None) -> go.Figure:
    """Williams-test p-values: does the row metric correlate significantly better than the column one?"""
    names = order or list(williams)
    ranking = {"lp": "", "systems": [{"system": n} for n in names], "pvalues": williams}
    fig = heatmap_figure(ranking)
    fig.update_yaxes(title="metric (row)")
    fig.update_xaxes(title="compared metric (column)")
    fig.update_traces(hovertemplate="%{y} correlates better than %{x}<br>%{customdata}<br>%{text}<extra></extra>",
                      colorbar_ticktext=[lab for _, lab, _ in P_LEVELS] + [NOT_SIGNIFICANT[0], "same metric"])
    return _layout(fig, "Williams test: row metric's correlation with humans is significantly higher",
                   height=max(320, 34 * len(names) + 200))


def qc_figure(summary: pd.DataFrame, title: str = "Quality control: what was kept") -> go.Figure:
    """Stacked percentage bars of kept / removed (rows: what; columns kept, removed); counts as labels."""
    total = (summary["kept"] + summary["removed"]).clip(lower=1)
    fig = go.Figure()
    for col, colour in (("kept", BLUE), ("removed", VERMILLION)):
        fig.add_trace(go.Bar(y=summary["what"], x=100 * summary[col] / total, orientation="h", name=col,
                             marker_color=colour, text=[f"{v:,}" for v in summary[col]], textposition="inside",
                             hovertemplate="%{y} " + col + ": %{text} (%{x:.1f}%)<extra></extra>"))
    fig.update_layout(barmode="stack", legend={"orientation": "h", "y": -0.3})
    fig.update_xaxes(title="share of all (%)", range=[0, 100])
    fig.update_yaxes(title="counted")
    return _layout(fig, title, height=260)


def year_lines_figure(frame: pd.DataFrame, x: str, y: str, group: str, title: str,
                      x_title: str | None = None, y_title: str | None = None) -> go.Figure:
    """One line per group (system or lp) across years."""
    fig = go.Figure()
    for name, part in frame.sort_values(x).groupby(group, sort=True):
        fig.add_trace(go.Scatter(x=plain_all(part[x]), y=part[y], mode="lines+markers", name=plain(name)))
    fig.update_xaxes(title=x_title or x, type="category")
    fig.update_yaxes(title=y_title or y)
    return _layout(fig, title, height=420)


CLUSTER_COLOURS = OKABE_ITO[:7]


def _text_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (#rrggbb; WCAG relative luminance)."""
    rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#000000" if luminance > 0.179 else "#ffffff"


def correlation_figure(table: pd.DataFrame, highlight: str | None = None, stat: str = "pearson") -> go.Figure:
    """Metrics' system-level correlation with bootstrap CI whiskers, coloured by significance cluster.

    ``table``: one row per metric with ``metric``, ``stat``, ``stat_ci_lo``/``_hi`` and ``cluster``,
    in the order to show (best first). The highlighted metric gets a black outline.
    """
    names = table["metric"].tolist()
    values = table[stat].to_numpy(dtype=float)
    lo = table.get(f"{stat}_ci_lo", pd.Series(np.nan, index=table.index)).to_numpy(dtype=float)
    hi = table.get(f"{stat}_ci_hi", pd.Series(np.nan, index=table.index)).to_numpy(dtype=float)
    clusters = table["cluster"].fillna(0).astype(int).to_numpy() if "cluster" in table else np.ones(len(table), int)
    colours = [CLUSTER_COLOURS[(c - 1) % len(CLUSTER_COLOURS)] for c in clusters]
    outline = [2.5 if n == highlight else 0 for n in names]
    fig = go.Figure(go.Bar(
        x=values, y=plain_all(names), orientation="h", marker={"color": colours, "line": {"color": "#000", "width": outline}},
        text=[f"{v:.3f} · cluster {c}" for v, c in zip(values, clusters)], textposition="inside",
        insidetextanchor="start", textfont={"color": [_text_on(c) for c in colours]},
        error_x={"type": "data", "symmetric": False, "array": np.nan_to_num(hi - values),
                 "arrayminus": np.nan_to_num(values - lo), "color": "#444", "thickness": 1.2},
        customdata=np.stack([lo, hi, clusters], axis=-1) if len(names) else None,
        hovertemplate="%{y}<br>" + stat + " %{x:.3f}<br>95% CI [%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
                      "<br>cluster %{customdata[2]}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title="metric")
    fig.update_xaxes(title=f"{stat} correlation with human Ave z (−1 to 1; whiskers: 95% bootstrap CI)", range=[min(-0.05, np.nanmin(
        np.append(lo, values)) - 0.05) if len(names) else -1, 1.02])
    return _layout(fig, "Where the metric stands: system-level correlation, colour = significance cluster",
                   height=max(260, 30 * len(names) + 110))


def gain_figure(frame: pd.DataFrame, title: str = "Gain per language pair (Graham et al. 2014, Fig. 1)") -> go.Figure:
    """Graham et al. 2014, Fig. 1: x = BEST(later) − BEST(earlier), y = Δ = CURR(earlier) − CURR(later), one point per
    language pair (and assessment); dotted lines join points of equal calibrated gain (x + y)."""
    fig = go.Figure()
    x = frame["best_difference"].to_numpy(dtype=float)
    y = frame["delta"].to_numpy(dtype=float)
    finite = np.isfinite(x) & np.isfinite(y)
    lo = float(min(0.0, np.min(x[finite], initial=0.0), np.min(y[finite], initial=0.0))) - 2
    hi = float(max(1.0, np.max(x[finite], initial=1.0), np.max(y[finite], initial=1.0))) + 2
    shapes = []
    step = max(1.0, float(np.ceil((hi - lo) / 6)))
    for g in np.arange(np.floor(2 * lo / step) * step, np.ceil(2 * hi / step) * step + step, step):
        shapes.append({"type": "line", "x0": lo, "x1": hi, "y0": g - lo, "y1": g - hi, "layer": "below",
                       "line": {"color": "#d9d9d9", "width": 1, "dash": "dot"}})
    shapes.append({"type": "line", "x0": lo, "x1": hi, "y0": -lo, "y1": -hi, "layer": "below",
                   "line": {"color": "#999", "width": 1.2}})
    fig.update_layout(shapes=shapes)
    symbols = {"adequacy": "circle", "fluency": "square", "esa": "diamond"}
    for assessment, part in frame.groupby(frame["assessment"].astype(str), sort=True):
        fig.add_trace(go.Scatter(
            x=part["best_difference"], y=part["delta"], mode="markers+text", name=plain(assessment),
            text=plain_all(part["lp"]), textposition="top center",
            marker={"size": 11, "symbol": symbols.get(assessment, "circle")},
            customdata=np.stack([part["gain"].to_numpy(dtype=float), plain_all(part["from"]),
                                 plain_all(part["to"])], axis=-1),
            hovertemplate="%{text} (%{customdata[1]} → %{customdata[2]})<br>BEST later − BEST earlier %{x:.1f}"
                          "<br>Δ (CURR earlier − later) %{y:.1f}<br>gain %{customdata[0]:.1f}<extra></extra>"))
    fig.update_xaxes(title="BEST(later) − BEST(earlier)  (raw DA points)", range=[lo, hi], zeroline=True)
    fig.update_yaxes(title="Δ = CURR(earlier) − CURR(later)  (raw DA points: test set harder by)", range=[lo, hi],
                     zeroline=True)
    fig.update_layout(legend={"orientation": "h", "y": -0.18})
    label = "" if not finite.any() else " — gain = x + y; grey diagonal: gain 0"
    return _layout(fig, title + label, height=480)


def gain_bars(frame: pd.DataFrame) -> go.Figure:
    """Calibrated gain per language pair as bars (raw points), starred by the Δ test."""
    labels = plain_all(frame["lp"] + " " + frame["assessment"].astype(str) + " " + frame["from"] + "→" + frame["to"])
    gains = frame["gain"].to_numpy(dtype=float)
    fig = go.Figure(go.Bar(x=gains, y=labels, orientation="h", marker_color=BLUE, cliponaxis=False,
                           text=[f"{g:+.1f}" for g in gains], textposition="outside"))
    # the long category labels push the y title left and the x title sits under the ticks: both axes
    # reserve their own room (automargin) and keep their titles clear of the tick labels (standoff); the
    # labels say pair, assessment and years, so the vertical title is short enough for one or two bars
    fig.update_yaxes(autorange="reversed", title={"text": "comparison", "standoff": 12}, automargin=True)
    finite = gains[np.isfinite(gains)]
    span = float(max(np.max(np.abs(finite), initial=0.0), 1.0))
    lo = float(min(np.min(finite, initial=0.0), 0.0)) - 0.25 * span  # room for the labels outside the bars
    hi = float(max(np.max(finite, initial=0.0), 0.0)) + 0.25 * span
    fig.update_xaxes(title={"text": "calibrated gain (raw DA points, 0–100 scale)", "standoff": 12}, automargin=True,
                     range=[lo, hi], zeroline=True, zerolinecolor="#555")
    fig = _layout(fig, "Calibrated gain per language pair", height=max(280, 36 * len(frame) + 170))
    fig.update_layout(margin={"l": 10, "r": 30, "t": 50, "b": 60})
    return fig


def measures_figure(frame: pd.DataFrame, keys: Iterable[str], title: str) -> go.Figure:
    """Each submission's measures (one bar colour per measure) with their 95% bootstrap CI whiskers.

    ``frame``: one row per submission with ``submission``, each ``key`` and ``<key>_ci_lo`` / ``_hi``
    (:func:`leaderboard.webapp.metrics_views.mteval_rows`). Values lie in [0, 1] (MCC in [−1, 1])."""
    keys = list(keys)
    names = plain_all(frame["submission"])
    fig = go.Figure()
    low = 0.0
    for i, key in enumerate(keys):
        values = pd.to_numeric(frame[key], errors="coerce").to_numpy(dtype=float)
        lo = pd.to_numeric(frame.get(f"{key}_ci_lo"), errors="coerce").to_numpy(dtype=float) \
            if f"{key}_ci_lo" in frame else np.full(len(frame), np.nan)
        hi = pd.to_numeric(frame.get(f"{key}_ci_hi"), errors="coerce").to_numpy(dtype=float) \
            if f"{key}_ci_hi" in frame else np.full(len(frame), np.nan)
        low = min(low, float(np.nanmin(np.append(lo, values))) if len(values) else 0.0)
        fig.add_trace(go.Bar(
            x=values, y=names, orientation="h", name=key.upper() if key == "mcc" else key.capitalize(),
            marker={"color": CLUSTER_COLOURS[i % len(CLUSTER_COLOURS)]},
            error_x={"type": "data", "symmetric": False, "array": np.nan_to_num(hi - values),
                     "arrayminus": np.nan_to_num(values - lo), "color": "#444", "thickness": 1.2},
            customdata=np.stack([lo, hi], axis=-1) if len(values) else None,
            hovertemplate="%{y}<br>" + key + " %{x:.3f}<br>95% CI [%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
                          "<extra></extra>"))
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.25})
    fig.update_yaxes(autorange="reversed", title="submission")
    fig.update_xaxes(title="value (whiskers: 95% bootstrap CI over segments)", range=[min(low - 0.05, 0), 1.02])
    return _layout(fig, title, height=max(280, 28 * len(names) * len(keys) + 140))
