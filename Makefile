# Two entry points for a newcomer: `make run` (install + start the app on the demo data) and
# `make test` (install + run every test). Both create ./.venv on first use.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# test processes run at once (pytest-xdist); many tests wait on servers, browsers and databases, so a
# few more than the cores keep them busy. TEST_WORKERS=0 runs everything in this one process.
TEST_WORKERS ?= 3
# the app's port: `make run PORT=8600`, or MTLB_PORT in the environment (as `mtlb serve` reads it)
PORT ?= $(or $(MTLB_PORT),8501)

.PHONY: install run test test-fast bench docs-images clean docker-build docker-test

$(BIN)/mtlb: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@

install: $(BIN)/mtlb

run: install
	$(BIN)/mtlb demo
	$(BIN)/mtlb serve --port $(PORT)

# Pearmut 1.1.6 (WMT26's annotation tool), unpacked beside the environment and never installed (it asks for
# Python 3.12): the tests check that its own results export reads the logs written here. Fetched once when
# PyPI answers; without it those tests skip (MTLB_PEARMUT_SRC may point at another unpacked copy).
PEARMUT := $(VENV)/pearmut-1.1.6
$(PEARMUT): | $(BIN)/mtlb
	@rm -rf $@.part && $(BIN)/pip download --quiet --no-deps --timeout 15 --retries 1 pearmut==1.1.6 \
	  --python-version 3.12 --only-binary=:all: -d $@.part >/dev/null 2>&1 \
	  && $(BIN)/python -m zipfile -e $@.part/pearmut-1.1.6-py3-none-any.whl $@ \
	  || echo "note: pearmut 1.1.6 could not be fetched; the tests that run it will skip" >&2; rm -rf $@.part

# every run prints its 25 slowest tests, so that what makes the suite slow stays visible
test: install $(PEARMUT)
	@if [ -z "$$MTLB_PEARMUT_SRC" ] && [ -d $(PEARMUT)/pearmut ]; then export MTLB_PEARMUT_SRC=$(abspath $(PEARMUT)); fi; \
	$(BIN)/python -m pytest -q -rs -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=25 $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# the developer's inner loop: everything but the slow tests (servers, browsers, the README walk-through,
# container and concurrency runs); `make test` before a commit
test-fast: install
	@$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not slow and not browser" --durations=10 $(PYTEST_ARGS)

# the README's screenshots: the page bench opens every page on the demo data in Chromium and writes
# docs/screenshots/<page>.png (and prints its timings); the annotation bench writes annotate-da/esa.png
docs-images: install
	$(BIN)/python bench/bench_pages.py --one-server --screenshots
	$(BIN)/python bench/bench_collect.py --screenshots

bench: install
	@for b in bench/bench_*.py; do $(BIN)/python $$b; done

# the container and the compose deployment, built here (docker/build-local.sh: python:3.11-slim when it
# can be pulled, else a debootstrap Debian base + a host-built wheelhouse) and tested for real;
# needs a running dockerd (the tests skip without one)
docker-build: install
	PYTHON=$(BIN)/python docker/build-local.sh --postgres

docker-test: install
	$(BIN)/python -m pytest -q -rs tests/test_dockerfile.py tests/test_docker.py tests/test_compose.py

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts
