# The two commands a newcomer needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo test explore lint bench clean docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[plot]"
	touch $@

$(TEST_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test,study,plot]"
	touch $@ $(STAMP)

$(DOCS_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[docs,test,study,plot]"
	touch $@ $(STAMP) $(TEST_STAMP)

demo: $(STAMP)
	$(BIN)/maxmargin demo

# What ruff checks (.pre-commit-config.yaml's hooks check the same folders).
LINTED := maxmargin tests examples bench tools

test: lint
	$(BIN)/python -m pytest -n 2

# The property tests with fresh random examples (make test replays fixed ones).
explore: $(TEST_STAMP)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest -n 2 -q tests

lint: $(TEST_STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy

docs: $(DOCS_STAMP)
	rm -rf docs/generated  # autosummary output: stale pages of renamed modules break -W
	$(BIN)/sphinx-build -W -b html docs docs/_build/html

bench: $(TEST_STAMP)
	$(BIN)/python bench/exact.py
	$(BIN)/python bench/online.py
	$(BIN)/python bench/own_learner.py
	$(BIN)/python bench/path.py
	$(BIN)/python bench/compare.py
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) maxmargin-demo .pytest_cache .ruff_cache \
		docs/_build docs/auto_examples docs/generated docs/api.rst
