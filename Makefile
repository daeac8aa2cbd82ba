# Spanproof — two commands on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck migrations-check pytest chromium bench clean-data gpu-bundle

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(PY) manage.py run_console

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# A model change without its migration fails here, not in production.
migrations-check: $(STAMP)
	$(PY) manage.py makemigrations --check --dry-run

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

pytest: $(STAMP) chromium
	@$(PY) -m pytest --durations=25 $(PYTEST_ARGS); rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

test: lint typecheck migrations-check pytest

bench: $(STAMP)
	$(PY) bench/binding.py --quick

# Everything one accelerator call needs to train spanproof-nli-v2 (docs/spanproof-nli-v2.md).
gpu-bundle: $(STAMP)
	for f in v1 v3-paraphrase v4-summaries v5-answers v6-mixed v7-atomic v8-rag; do \
	  $(PY) bench/judge_planted.py --fixture bench/fixtures/planted-$$f.json \
	    --export-items var/planted-$${f%%-*}-items.jsonl > /dev/null || exit 1; \
	done
	$(PY) -m verifier.judges.nli.bundle
