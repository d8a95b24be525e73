"""The submissions stage: test sets, team uploads, automatic scores and the automatic leaderboard.

A shared task starts before any human judgment: organisers release a test set (source, references,
deadline), teams upload their translations, each valid upload is scored at once with sacrebleu
(BLEU and chrF against all references together, tokenised by target language as WMT does), and an
automatic leaderboard with paired-bootstrap significance clusters shows where the teams stand. The
teams' primary submissions then become the campaign's system outputs: the HIT builder, the metric
developers' evaluation package and the human ranking use them without any file shuffling.

Modules: :mod:`.reading` (validation of uploads),
:mod:`.scoring` (sacrebleu scores, signatures and sufficient statistics), :mod:`.sacrestats`
(sacrebleu's score formulas on arrays of statistics), :mod:`.significance` (paired bootstrap for all
pairs at once), :mod:`.board` (the automatic leaderboard), :mod:`.autorank` (WMT's AutoRank of a test
set from the stored metric submissions), :mod:`.diffview` (word-level differences for the output
viewer), :mod:`.service` (the operations the CLI and the app share); the tokeniser by target language
is :mod:`leaderboard.languages`, unless the test set names its own.
"""
