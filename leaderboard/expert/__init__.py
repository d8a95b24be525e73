"""Expert human evaluation: MQM error annotations and ESA error spans (WMT23-24 style).

The files are read by :mod:`leaderboard.ingest.mqm` and :mod:`leaderboard.ingest.esa`; here:

- :mod:`.weights` holds the named severity/category weight schemes;
- :mod:`.scoring` turns errors into segment and system MQM scores;
- :mod:`.ranking` ranks systems by MQM with paired significance tests and clusters;
- :mod:`.baselines` scores an MQM file's outputs with sentence BLEU and chrF, baselines for meta-evaluation;
- :mod:`.spans` marks spans in output text as escaped HTML.

ESA systems are ranked by the WMT24 protocol of :mod:`leaderboard.human.ranking`.
"""
