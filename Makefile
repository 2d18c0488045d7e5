# Two entry points: `make run` serves Koz on an embedded Redis, `make test` runs every test.
# Both create the virtual environment on first use: `make run` installs what serving needs only,
# `make test` adds the test tools (the `test` extra).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CHECKSUM := $(shell cksum < pyproject.toml | cut -d' ' -f1)
SERVING := $(VENV)/.serving-$(CHECKSUM)
STAMP := $(VENV)/.installed-$(CHECKSUM)
# the browser tests drive Debian's Chromium through Playwright (no browser download)
CHROMIUM := /usr/bin/chromium
OPENAPI_TOOLS := openapi/node_modules/.package-lock.json
# boardgame.io 0.50, the peer of bench/api.py --peer boardgameio, pinned by its package-lock.json
PEER_BOARDGAMEIO := bench/peer_boardgameio/node_modules/.package-lock.json

.PHONY: run test bench openapi clean mutate

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs the environment: on a fresh machine the test environment took 29 s with it against 80 s with pip
$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv
INSTALL := $(BIN)/uv pip install --quiet --python $(BIN)/python

$(SERVING): pyproject.toml | $(BIN)/uv
	$(INSTALL) -e .
	rm -f $(VENV)/.serving-*
	touch $@

$(STAMP): pyproject.toml | $(BIN)/uv
	$(INSTALL) -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

run: $(SERVING)
	$(BIN)/koz serve

$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else \
		echo "$(CHROMIUM) is missing: 'apt-get install chromium' as root, or the browser tests are skipped"; \
	fi

# the Node tools (the OpenAPI linters, the TypeScript client's generator and compiler, the schema sampler, axe-core),
# pinned by openapi/package-lock.json; their tests fail, saying so, when Node.js is missing.
# --ignore-scripts: none of them needs an install script
$(OPENAPI_TOOLS): openapi/package-lock.json
	@if command -v npm >/dev/null; then \
		npm ci --prefix openapi --no-audit --no-fund --ignore-scripts --loglevel=error; \
	else \
		echo "npm is missing: the OpenAPI lint and client tests will fail ('apt-get install nodejs npm' as root)"; \
	fi

$(PEER_BOARDGAMEIO): bench/peer_boardgameio/package-lock.json
	@if command -v npm >/dev/null; then \
		npm ci --prefix bench/peer_boardgameio --no-audit --no-fund --ignore-scripts --loglevel=error; \
	else \
		echo "npm is missing: the boardgame.io peer's test will fail ('apt-get install nodejs npm' as root)"; \
	fi

# One test worker more than the cores: the slowest tests wait about as much as they compute
# (koz serve starting, a failover, a browser), and a fresh clone's run on two workers used 79% of
# its two cores. worksteal: a worker that runs out of tests takes queued ones from another, so the
# slow ones at the end of a queue do not run alone.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(getattr(os, "sched_getaffinity", lambda _: range(os.cpu_count() or 1))(0)) + 1)')
# What the tests need is installed side by side (Python packages, Chromium, two npm trees): mostly
# downloads, which wait on the network rather than on each other.
test:
	$(MAKE) --jobs=4 --output-sync=target $(STAMP) $(CHROMIUM) $(OPENAPI_TOOLS) $(PEER_BOARDGAMEIO)
	$(BIN)/ruff check engine service bench tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=30

# The schnapsen platform pins dependencies Koz cannot share, so it has its own environment.
$(VENV)-peer/.installed:
	$(PYTHON) -m venv $(VENV)-peer
	$(VENV)-peer/bin/python -m pip install --quiet 'schnapsen==0.0.5'
	touch $@

bench: $(SERVING) $(VENV)-peer/.installed $(PEER_BOARDGAMEIO)
	$(BIN)/python bench/engine.py --peer
	$(BIN)/python bench/api.py
	$(BIN)/python bench/api.py --peer boardgameio

openapi: $(SERVING)
	$(BIN)/koz openapi

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis mutants

# Mutation testing (docs/mutation-report.md), not part of `make test`: it takes long. mutmut
# mutates the modules [tool.mutmut] in pyproject.toml names and runs, for each mutant, only the
# tests that reached the mutated function; at a lower CPU priority (MUTATE_NICE), on MUTATE_JOBS cores.
# MUTANTS picks some, by mutmut's names: `make mutate MUTANTS='service.tokens.*'`. Each mutant's tests
# run cheapest first (tests/mutation_cheapest_first.py), so that a killed mutant costs its quickest killer.
MUTANTS ?=
MUTATE_JOBS ?= 2
MUTATE_NICE ?= 19
$(VENV)/.mutate-installed-$(CHECKSUM): $(STAMP)
	$(INSTALL) -e '.[test,mutate]'
	rm -f $(VENV)/.mutate-installed-*
	touch $@

mutate: $(VENV)/.mutate-installed-$(CHECKSUM)
	PYTEST_ADDOPTS="-p tests.mutation_cheapest_first" nice -n $(MUTATE_NICE) $(BIN)/mutmut run --max-children $(MUTATE_JOBS) $(MUTANTS)
	$(BIN)/mutmut results
