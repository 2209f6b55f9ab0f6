# Qalisball Live — two commands on a fresh machine: `make run` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run run-cluster test lint bench bench-fanout bench-compare system-deps clean messages decisions docs

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt -r requirements-dev.txt
	touch $(STAMP)

# QALISBALL_WORKERS=N make run: the cluster below with N spectator processes. The documentation the app
# serves under /docs is built on first use, beside the server rather than before it (issue 27 item 10: the
# build took 20-50 s of a fresh clone's first start): /docs says it is being built until the whole site is
# moved into place; its output goes to $(DOCS_SITE).log (a failed build leaves /docs saying how to build it).
run: $(STAMP)
	@test -f $(DOCS_SITE)/index.html || { mkdir -p $(dir $(DOCS_SITE)) && \
		{ $(MAKE) --no-print-directory docs >$(DOCS_SITE).log 2>&1 || echo "make run: the documentation was not built (make docs; $(DOCS_SITE).log)"; } & }
	@if [ -n "$(QALISBALL_WORKERS)" ] && [ "$(QALISBALL_WORKERS)" != "0" ]; then \
		./scripts/ensure-system-deps.sh cluster && $(PY) -m qalisball.server.cluster; \
	else $(PY) app.py; fi

# One writer, QALISBALL_WORKERS (2) spectator processes, Redis and HAProxy on PORT (docs/deploy.md).
run-cluster: $(STAMP)
	./scripts/ensure-system-deps.sh cluster
	$(PY) -m qalisball.server.cluster

system-deps:
	./scripts/ensure-system-deps.sh

# Two workers (pytest-xdist): the suite waits on browsers and servers as much as it computes, and CI stops a run
# that takes 15 minutes; one process took 12–14 of them. TEST_ARGS replaces the worker options (TEST_ARGS= for one process).
TEST_ARGS ?= -n 2 --dist worksteal
test: $(STAMP) system-deps
	$(PY) -m pytest $(TEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict --follow-imports=silent qalisball/rules
	$(VENV)/bin/lint-imports  # the import contracts of .importlinter (issue 21)

# Words as data (issue 21): the catalogue's template from the code (babel.cfg's keywords), the engine's
# messages the console needs (qalisball/match/engine_messages.py), and the decisions rendered (below).
messages: $(STAMP) decisions
	$(VENV)/bin/pybabel extract -F babel.cfg -o instance/messages.pot --sort-by-file .
	$(PY) scripts/extract_engine_messages.py

# docs/decisions.md, qalisball/web/decision_titles.py and the titles' Chinese, from docs/decisions.toml.
decisions: $(STAMP)
	$(PY) scripts/render_decisions.py

# The documentation site (issue 23): docs/ and mkdocs.yml -> instance/docs-site, served by the app under /docs.
# --strict: a broken link or a page missing from the navigation fails the build (tests/test_docs_site.py runs it too).
DOCS_SITE := instance/docs-site
# Built into a folder of its own and moved into place whole, so /docs never serves a half-built site.
docs: $(STAMP)
	rm -rf $(DOCS_SITE).new
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir $(DOCS_SITE).new
	rm -rf $(DOCS_SITE) && mv $(DOCS_SITE).new $(DOCS_SITE)

bench: $(STAMP)
	$(PY) bench/fanout_bench.py
	$(PY) bench/engine_bench.py
	$(PY) bench/broadcast_bench.py
	$(PY) bench/report_bench.py
	$(PY) bench/competition_bench.py
	$(PY) bench/screens_bench.py
	$(PY) bench/tap_latency.py

# POST -> last spectator, the server as `make run` starts it against the bare-websockets floor (issue 29).
# BENCH_ARGS="--n 1000 --rounds 3" for issue 29's configuration.
bench-fanout: $(STAMP)
	$(PY) bench/fanout_bench.py $(BENCH_ARGS)

# The same, with BASE (any git ref) checked out under bench/.cache and served by turns in the same run.
bench-compare: $(STAMP)
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<git ref> [BENCH_ARGS='--n 1000 --rounds 3']"; exit 2; }
	$(PY) bench/fanout_bench.py --base "$(BASE)" $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
