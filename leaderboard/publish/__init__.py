"""Publishing: rankings become immutable, versioned snapshots that the pages and downloads read.

- :mod:`.snapshots`: rank a campaign's stored judgments and store each ranking as a new version;
- :mod:`.artifacts`: what a snapshot's pages show, computed once at publish time (segment scores, QC,
  metric baselines and their correlations);
- :mod:`.metric_eval`: the metric-evaluation tables behind those artifacts and the Metrics page;
- :mod:`.render`: a ranking as a table, a Findings-style LaTeX table and a caption in words;
- :mod:`.demo`: loading and publishing the shipped demo campaigns.
"""
