"""Use cases: what a user does, written once for both views.

The command line (``cli/``) and the web app (``webapp/``) parse their inputs, call a function of
this package and show its result; a use case calls the stages below it (ingest, storage,
statistics, publish) and never phrases a hint for one view.

- :mod:`.store_files` — validate judgment / annotation / test-set text files and store them in one transaction;
- :mod:`.metric_scores` — check a metric developer's scores against a campaign and store them;
- :mod:`.hits` — build a crowd-DA HIT batch into a folder or as files to download;
- :mod:`.publish` — preview a ranking of stored judgments and publish it as a snapshot;
- :mod:`.collect` — reset an annotator's HIT in a campaign run in the service;
- :mod:`.campaigns` — checks of a stored campaign (are its segment ids line numbers of its texts?).
"""
