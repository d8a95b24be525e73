"""The crowd Direct Assessment method: from judgments to ranked systems, all pure functions over frames.

- :mod:`.qc` (and :mod:`.qc_methods`): worker-intrinsic quality control from the degraded-reference and
  repeat pairs of each worker's HITs;
- :mod:`.standardise`: per-worker z-scores;
- :mod:`.scores`: per-segment and per-system scores;
- :mod:`.significance`, :mod:`.clusters`, :mod:`.intervals`: pairwise tests, rank ranges and clusters,
  bootstrap intervals and rank stability;
- :mod:`.ranking`: the protocols (WMT DA, ESA) that put these together into a published ranking;
- :mod:`.domains`: the domain of each segment, for per-domain tests;
- :mod:`.agreement`, :mod:`.power`, :mod:`.relative_ranking`, :mod:`.combined`: agreement between
  workers, statistical power, relative-ranking comparisons and combined rankings;
- :mod:`.longitudinal`: comparing systems across years through calibration systems;
- :mod:`.simulate`: simulated crowd campaigns (good, lenient, harsh and random workers).
"""
