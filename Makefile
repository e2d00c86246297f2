# Two commands for a fresh machine: `make demo` and `make test`. Both build .venv themselves.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.veil-installed
# torch first, pinned to the CPU build, or pip resolves a CUDA build of several GB.
TORCH ?= torch==2.13.0

.PHONY: demo test lint typecheck unit install clean bench mutation

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade "pip>=25.1"

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install --quiet $(TORCH)
	$(PIP) install --quiet -e ".[all]" --group dev
	# pycanon is the peer checker the risk tests compare with. It pins exact versions of numpy,
	# pandas, scipy and typer that conflict with ours; its anonymity module needs only numpy
	# and pandas, so it is installed without its pins.
	$(PIP) install --quiet --no-deps "pycanon==1.3.6"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/veil demo --out out/demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(VENV)/bin/mypy

unit: $(STAMP)
	# bytecode for veil's own modules, as an installed copy has: the tests start the CLI in
	# hundreds of subprocesses, and a machine with PYTHONDONTWRITEBYTECODE set would
	# otherwise compile every module in each of them
	$(PY) -m compileall -q src/veil
	$(PY) -m pytest -q -n 2 --dist loadfile --durations=25 tests
	# the Examples sections of the docstrings (a separate run: modules are imported anew)
	$(PY) -m pytest -q -p no:cacheprovider --doctest-modules src/veil

test: lint typecheck unit

bench: $(STAMP)
	for f in benchmarks/*_*.py; do echo "== $$f"; PYTHONPATH=src $(PY) $$f || exit 1; done

# Mutation testing of the privacy-critical modules ([tool.mutmut] in pyproject.toml; kill
# rates and survivors in docs/mutation.md). Slow: not part of `make test`. One module:
# make mutation MUTANTS='veil.tabular._keys*'
MUTANTS ?=
mutation: $(STAMP)
	$(PY) -m mutmut run $(MUTANTS)
	$(PY) -m mutmut export-cicd-stats
	$(PY) -m mutmut results

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache mutants
