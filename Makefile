# Two entry points for a fresh machine (Python >= 3.10, pip, make, git): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow install install-test bench clean wheel docs

# the demo needs only the runtime dependencies; the tests install every extra so that none of them skip
EXTRAS ?= dev,web,browser,inspect,dask,docs,slurm,ray,fast

# the runtime dependencies only: enough for `make demo` and every command
$(BIN)/certirank: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(BIN)/certirank

$(VENV)/.test-extras: $(BIN)/certirank
	$(BIN)/pip install --quiet -e ".[$(EXTRAS)]"
	touch $(VENV)/.test-extras

install: $(BIN)/certirank

install-test: $(VENV)/.test-extras

demo: install
	$(BIN)/certirank demo

# the default suite (slow Monte Carlo studies are deselected: `make test-slow` runs them)
test: install-test
	$(BIN)/python -m pytest -q

# Every benchmark script with its default settings (hours: the studies are Monte Carlo); each prints its own table.
bench: install-test
	for f in benchmarks/speed/*.py benchmarks/studies/*.py benchmarks/reproduce/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Slow Monte Carlo studies kept out of the default suite.
test-slow: install-test
	$(BIN)/python -m pytest -q -m slow

clean:
	rm -rf $(VENV) build site *.egg-info src/*.egg-info

# Build the sdist and wheel and check the installed wheel works outside the checkout (what CI runs after the tests).
wheel: install-test
	$(BIN)/python .ci/check_wheel.py

# The documentation site (mkdocs-material + mkdocstrings), built with --strict: a broken link or reference fails.
docs: install-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet -d site
