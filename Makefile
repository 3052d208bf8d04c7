# The two commands a newcomer needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(STAMP)

demo: $(STAMP)
	$(BIN)/maxmargin demo

test: $(TEST_STAMP)
	$(BIN)/ruff check maxmargin tests examples bench
	$(BIN)/python -m pytest -n 2

lint: $(TEST_STAMP)
	$(BIN)/ruff check maxmargin tests examples bench

bench: $(TEST_STAMP)
	$(BIN)/python bench/exact.py
	$(BIN)/python bench/online.py

clean:
	rm -rf $(VENV) maxmargin-demo .pytest_cache .ruff_cache
