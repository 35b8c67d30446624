# `make demo` and `make test` each create .venv when missing, install, and run.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned: the CPU build on disk (an unpinned torch may pull a CUDA build).
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m gin_env.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check gin_env agents training tests benchmarks
	$(BIN)/ruff format --check gin_env agents training tests benchmarks
	$(BIN)/mypy gin_env

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_rules.py
	$(BIN)/python benchmarks/bench_env.py

clean:
	rm -rf $(VENV)
