# Stratoscope — the commands in README's quick start. Everything runs inside .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the node's hottest modules compiled by mypyc (tools/build_native.py; app/node/native.py names
# them): rebuilt when a source changes; without a C compiler the node runs them as Python
NATIVE := build/native/stamp.json
NATIVE_SRC := app/node/native.py app/node/jsonenc.py app/node/state_diff.py \
	app/node/cirrus/collections.py app/node/ledger/entries.py app/node/ledger/packing.py \
	app/node/ledger/preimages.py app/node/solidvm/address.py app/node/solidvm/trace.py \
	app/node/solidvm/trace_show.py

.PHONY: install run test lint bench package clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install only when the project definition changed.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(NATIVE): $(NATIVE_SRC) tools/build_native.py | $(STAMP)
	$(BIN)/python tools/build_native.py

install: $(STAMP) $(NATIVE)

run: $(STAMP) $(NATIVE)
	$(BIN)/python -m app

lint: $(STAMP)
	$(BIN)/ruff check app tests benchmarks tools
	$(BIN)/ruff format --check app tests benchmarks tools
	$(BIN)/mypy

# the suite's modules shared between TEST_JOBS worker processes (pytest-xdist), each module
# whole in one worker (its one node per module kept); TEST_JOBS=0 runs it in this process.
# The modules that use Qt's application (the GUI's and QT_MODULES) in a run of their own, after
# the others: xdist hands out the largest modules first, and such a module leaves its process
# with the application and the collector confined to the GUI thread (tests/conftest.py), which
# the node's in-process tests must not inherit.
TEST_JOBS ?= 2
QT_MODULES := tests/integration/test_services.py tests/integration/test_sandbox_supervisor.py
PYTEST := QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile

test: $(STAMP) $(NATIVE)
	$(MAKE) --no-print-directory lint
	STRATOSCOPE_TESTS_WITHOUT_QT=1 $(PYTEST) tests/unit tests/integration tests/packaging \
		$(QT_MODULES:%=--ignore=%)
	$(PYTEST) $(QT_MODULES) tests/gui

# SolidVM in-process (seconds), the node over HTTP beside anvil and Ganache (~8 min),
# Cirrus on a 1M-row table (~3 min), the table viewer on a 1M-row table (~1.5 min).
# Each writes benchmarks/results/<name>.json.
bench: $(STAMP) $(NATIVE)
	$(BIN)/python benchmarks/solidvm_bench.py
	$(BIN)/python benchmarks/node_bench.py
	$(BIN)/python benchmarks/cirrus_bench.py
	$(BIN)/python benchmarks/cirrus_view_bench.py
	$(BIN)/python benchmarks/dashboard_bench.py
	$(BIN)/python benchmarks/gui_bench.py

# The one-directory bundle dist/stratoscope/ (PyInstaller), smoke-tested with --self-test.
package: $(STAMP)
	packaging/build.sh

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
