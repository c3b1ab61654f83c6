# Two entry points for a fresh machine (Python >= 3.10, pip, make, git): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install bench clean

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

bench: install
	$(BIN)/python -m pytest benchmarks -q -m "slow or not slow" --benchmark-only

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
