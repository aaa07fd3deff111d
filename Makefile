# `make up REPO=path` sets everything up, indexes REPO (default: here) and serves it;
# `make test` runs the whole suite against a throwaway Neo4j it starts and stops itself.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
REPO ?= .

.PHONY: setup neo4j neo4j-stop up test accuracy

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the dependencies change (the package itself is installed editable).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $@

# Byte-compiled as a wheel's install would be: with PYTHONDONTWRITEBYTECODE set, every command
# would otherwise compile the package's modules again (~0.07 s of CPU per run).
setup: $(VENV)/.installed
	$(BIN)/python -m compileall -q graphsvc indexers >/dev/null

neo4j: setup
	$(BIN)/graphsvc neo4j install
	$(BIN)/graphsvc neo4j start

neo4j-stop: setup
	$(BIN)/graphsvc neo4j stop

up: setup neo4j
	$(BIN)/graphsvc index $(REPO) --communities
	$(BIN)/graphsvc serve

# `python -m` puts the repository root on sys.path (tests import helpers as `tests.…`).
# pytest exits 5 when it collects nothing; make fails on any non-zero exit, so that fails too.
test: setup
	$(BIN)/python -m pytest -q

# Definitions and call edges against independent oracles (ast, Universal Ctags, Jedi, go/types, the
# TypeScript checker), Python calls on PyPI projects against Jedi, JavaScript calls on CommonJS
# npm packages against the TypeScript checker, then PyCG's micro-benchmark;
# see docs/accuracy.md.
accuracy: setup
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python bench/accuracy.py
	$(BIN)/python -m bench.accuracy.python_projects
	$(BIN)/python -m bench.accuracy.js_calls
	$(BIN)/python bench/accuracy/pycg.py
