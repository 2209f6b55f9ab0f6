# Qalisball Live — two commands on a fresh machine: `make run` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench system-deps clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt -r requirements-dev.txt
	touch $(STAMP)

run: $(STAMP)
	$(PY) app.py

system-deps:
	./scripts/ensure-system-deps.sh

test: $(STAMP) system-deps
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict --follow-imports=silent qalisball/rules

bench: $(STAMP)
	$(PY) bench/engine_bench.py
	$(PY) bench/broadcast_bench.py
	$(PY) bench/report_bench.py
	$(PY) bench/competition_bench.py
	$(PY) bench/screens_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
