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
	$(PY) bench/judge_planted.py --export-items var/planted-v1-items.jsonl > /dev/null
	$(PY) bench/judge_planted.py --fixture bench/fixtures/planted-v3-paraphrase.json \
	  --export-items var/planted-v3-items.jsonl > /dev/null
	$(PY) bench/judge_planted.py --fixture bench/fixtures/planted-v4-summaries.json \
	  --export-items var/planted-v4-items.jsonl > /dev/null
	$(PY) bench/judge_planted.py --fixture bench/fixtures/planted-v5-answers.json \
	  --export-items var/planted-v5-items.jsonl > /dev/null
	$(PY) bench/judge_planted.py --fixture bench/fixtures/planted-v6-mixed.json \
	  --export-items var/planted-v6-items.jsonl > /dev/null
	$(PY) bench/judge_planted.py --fixture bench/fixtures/planted-v7-atomic.json \
	  --export-items var/planted-v7-items.jsonl > /dev/null
	$(PY) bench/judge_planted.py --fixture bench/fixtures/planted-v8-rag.json \
	  --export-items var/planted-v8-items.jsonl > /dev/null
	$(PY) -m verifier.judges.nli.bundle
