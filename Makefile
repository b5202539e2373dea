# Jupiter: `make demo` and `make test` are all the set-up there is.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# torch first and pinned: 2.13.0 resolves to the CPU build on Linux without CUDA;
# an unpinned torch would pull gigabytes of CUDA wheels.
TORCH_SPEC ?= torch==2.13.0

.PHONY: setup demo quick test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH_SPEC)"
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

demo: setup
	$(BIN)/jupiter start --domain python --auto

quick: setup
	$(BIN)/jupiter start --domain python --auto --quick

test: setup
	$(BIN)/pytest -q

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src

bench: setup
	$(BIN)/python benchmarks/cycle.py

clean:
	rm -rf $(VENV) runs .pytest_cache
