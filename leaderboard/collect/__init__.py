"""The collection stage: human evaluation run in the service, from the outputs to stored judgments.

An organiser creates an annotation campaign for one language pair (:mod:`.campaigns`) from the
campaign's primary submissions or from files: DA HITs exactly as the crowd-batch builder makes them
(:mod:`leaderboard.hits.builder`), or document-level ESA HITs (:mod:`leaderboard.hits.documents`).
Annotators arrive through invitation links or a crowd link (:mod:`.links`); the annotator's side
(:mod:`.service`) hands out HITs one at a time, stores every answer as a judgment when it is given
and, when a HIT completes, runs the worker test on all the annotator's HITs and picks the completion
code (:mod:`.quality`). :mod:`.status` reports progress, :mod:`.export` writes the Appraise and WMT
release layouts, :mod:`.simulate` answers HITs with simulated workers through the same functions
the web page calls. Storage is :mod:`leaderboard.storage.collect`.
"""
