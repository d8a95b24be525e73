"""Metric meta-evaluation as the WMT23-25 Metrics tasks do it (Google's mt-metrics-eval), against
segment-level human scores (MQM, ESA, DA).

- :mod:`.acc_eq` — tie-calibrated pairwise accuracy grouped by item, with its tie threshold ε;
- :mod:`.spa` — soft pairwise accuracy with the reference tool's fixed permutations (exact values);
- :mod:`.sysacc`, :mod:`.correlations` — system accuracy, Pearson, Pairwise Difference Pearson;
- :mod:`.hybrids` — how each statistic's metric-vs-metric test mixes two metrics (vectorised draws);
- :mod:`.perm` — the tests (p-values, early stopping) and the clusters;
- :mod:`.tasks` — the statistics and the WMT23 / WMT24-25 task sets;
- :mod:`.global_rank` — the ranking over tasks with draw-by-draw global p-values;
- :mod:`.reference` — reference points: metric kinds (baseline, sentinel, human) and chance levels;
- :mod:`.inputs` — reading human and metric scores into matrices, system selection, input checks;
- :mod:`.evaluate` — everything for one or several language pairs, as ``mtlb meta-eval`` prints it.

Every statistic is a pure function of ``systems x segments`` arrays (NaN = unrated), with
higher = better on both sides (MQM is negated before it gets here).
"""
