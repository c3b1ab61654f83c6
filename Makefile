# Two entry points for a fresh machine (Python >= 3.10, pip, make, git): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow install bench clean

$(BIN)/certirank: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(BIN)/certirank

install: $(BIN)/certirank

demo: install
	$(BIN)/certirank demo

test: install
	$(BIN)/python -m pytest -q

# Every benchmark script with its default settings (tens of minutes); each prints its own table.
bench: install
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Slow Monte Carlo studies kept out of the default suite.
test-slow: install
	$(BIN)/python -m pytest -q -m slow

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
