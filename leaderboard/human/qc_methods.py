"""Names of the worker QC tests (docs/method/quality-control.md#which-test-each-option-runs), kept
apart from the statistics so the CLI can list them without importing scipy."""

DEFAULT_METHOD = "paired-t"
METHODS: tuple[str, ...] = ("paired-t", "bad-ref-vs-repeat", "welch", "mwu")
#: fewest bad-reference pairs a worker needs before the test can pass
DEFAULT_MIN_PAIRS = 2
