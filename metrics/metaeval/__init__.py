"""Metric meta-evaluation as WMT23-24 does it, against segment-level human scores (MQM, ESA, DA).

- :mod:`.acc_eq` — tie-calibrated pairwise accuracy grouped by item (WMT23; mt-metrics-eval's
  ``KendallWithTiesOpt(variant='acc23', average_by='item', sample_rate=1.0)``);
- :mod:`.spa` — soft pairwise accuracy (WMT24; ``PairwiseConfidenceError``);
- :mod:`.sysacc` — system-level pairwise accuracy;
- :mod:`.perm` — PERM-BOTH significance clusters among metrics for acc_eq and SPA;
- :mod:`.global_rank` — the ranking across tasks (average of ranks and of accuracies, WMT23);
- :mod:`.inputs` — reading the WMT segment-level TSV and human segment scores into matrices;
- :mod:`.evaluate` — everything for one language pair, as ``mtlb meta-eval`` prints it.

Every statistic is a pure function of ``systems x segments`` arrays (NaN = missing), with
higher = better on both sides (MQM is negated before it gets here).
"""
