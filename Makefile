# `make demo` and `make test` each create .venv when missing, install, and run.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow test-wheel test-rllib test-browser test-examples test-benchmarl lint bench docs clean

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned: the CPU build on disk (an unpinned torch may pull a CUDA build).
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,torchrl,dev,web,llm]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gin-rummy match --agents heuristic,simple,random --seed 1

# The suite but its long tests (marked slow), the browser tests and the examples, which have
# their own targets; CI runs them all.
test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not browser and not examples"

# The long tests: the large differential and training runs (the wheel has its own target).
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow --ignore=tests/test_wheel.py

# The wheel built, installed into a fresh venv (not editable) and used as users do (minutes).
test-wheel: $(STAMP)
	$(BIN)/python -m pytest -q tests/test_wheel.py

# The web page (gin-rummy serve) in a real headless Chromium: needs Debian's chromium and
# chromium-driver (apt-get install -y chromium chromium-driver); screenshots land in
# $(GIN_WEB_SCREENSHOTS).
GIN_WEB_SCREENSHOTS ?= runs/web_screenshots
test-browser: $(STAMP)
	GIN_WEB_SCREENSHOTS=$(GIN_WEB_SCREENSHOTS) $(BIN)/python -m pytest -q -m browser tests/test_web_browser.py

lint: $(STAMP)
	$(BIN)/ruff check gin_env agents gin_eval training gin_cli gin_web studies tests benchmarks notebooks docs/hooks examples
	$(BIN)/ruff format --check gin_env agents gin_eval training gin_cli gin_web studies tests benchmarks docs/hooks examples
	$(BIN)/mypy gin_env agents gin_eval training gin_cli gin_web studies

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_rules.py
	$(BIN)/python benchmarks/bench_env.py

# The documentation site, from docs/, the README and the docstrings, into site/ (git-ignored);
# --strict: a broken link or cross-reference fails the build.
DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(RLLIB_VENV) $(BENCHMARL_VENV) site

# examples/, each at its smoke budget: TorchRL, SB3 and Tianshou here (Tianshou is an extra
# of its own); BenchMARL and RLlib in their own venvs (test-benchmarl, test-rllib).
EXAMPLES_STAMP := $(VENV)/.examples-installed

$(EXAMPLES_STAMP): $(STAMP)
	$(BIN)/pip install -q -e ".[tianshou]"
	touch $(EXAMPLES_STAMP)

test-examples: $(EXAMPLES_STAMP)
	$(BIN)/python -m pytest -q -m examples tests/test_examples.py

# BenchMARL lives in its own venv: it needs torchrl < 0.12, the torchrl extra pins 0.14.
BENCHMARL_VENV := .venv-benchmarl
BENCHMARL_STAMP := $(BENCHMARL_VENV)/.installed

$(BENCHMARL_STAMP): pyproject.toml
	test -x $(BENCHMARL_VENV)/bin/python || $(PY) -m venv $(BENCHMARL_VENV)
	$(BENCHMARL_VENV)/bin/pip install -q --upgrade pip
	$(BENCHMARL_VENV)/bin/python -c "import torch" 2>/dev/null || $(BENCHMARL_VENV)/bin/pip install -q torch==2.13.0
	$(BENCHMARL_VENV)/bin/pip install -q -e ".[benchmarl]" pytest
	touch $(BENCHMARL_STAMP)

test-benchmarl: $(BENCHMARL_STAMP)
	$(BENCHMARL_VENV)/bin/python -m pytest -q -m examples tests/test_examples.py -k benchmarl

# RLlib lives in its own venv: ray[rllib] pins a gymnasium older than the core install's.
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed

$(RLLIB_STAMP): pyproject.toml
	test -x $(RLLIB_VENV)/bin/python || $(PY) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/python -c "import torch" 2>/dev/null || $(RLLIB_VENV)/bin/pip install -q torch==2.13.0
	$(RLLIB_VENV)/bin/pip install -q -e ".[rllib]" pytest
	touch $(RLLIB_STAMP)

test-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest -q tests/test_rllib.py
	$(RLLIB_VENV)/bin/python -m pytest -q -m examples tests/test_examples.py -k rllib
