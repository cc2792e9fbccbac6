# tracekit: two set-up commands on a fresh machine, `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TRACEKIT := $(VENV)/bin/tracekit
FUZZ_SECONDS ?= 180
# pytest-xdist processes: the whole suite runs in about 7 minutes on 2 cores (11 in one process).
PYTEST_WORKERS ?= 2

.PHONY: demo test install install-test corpus corpus-check fuzz bench lint clean browser report-screenshots

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	@# Bytecode now: with PYTHONDONTWRITEBYTECODE set, every start would otherwise compile every
	@# tracekit module it imports (docs/cli.md, "Start-up"); Python recompiles a changed one.
	$(PY) -m compileall -q tracekit
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test,dask]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

demo: install
	@echo "== 1. tracekit verify: are the bundled AgentGuard traces intact? (exit 0)"
	$(TRACEKIT) verify corpus/valid corpus/third_party/agentguard
	@echo
	@echo "== 2. tracekit audit: real logs of six formats (Inspect AI, OpenTelemetry GenAI, AgentDojo,"
	@echo "==    garak, AgentGuard, OWASP harness): what each carries, per format (exit 1: gaps to act on)"
	$(TRACEKIT) audit corpus/third_party || test $$? -eq 1
	@echo
	@echo "== 3. tracekit check: an injected email made the agent mail an outsider; where did the"
	@echo "==    address come from, and did the tool act? (a real Inspect AI log, strict rules)"
	$(TRACEKIT) check corpus/findings/exfil-email.yaml corpus/third_party/inspect/tracekit_corpus.eval --strict -f table

# The browser tests of `tracekit report` need Debian's chromium (docs/report.md). Installed only
# when it is missing and we are root with apt-get (a fresh container); anywhere else nothing is
# installed and those tests are skipped with the reason.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "== installing chromium for the browser tests (apt-get)"; \
	  apt-get install -y --no-install-recommends chromium \
	    || { apt-get update && apt-get install -y --no-install-recommends chromium; } \
	    || echo "chromium could not be installed: the browser tests will be skipped"; \
	else \
	  echo "chromium is not installed and this is not root: the browser tests will be skipped"; \
	fi

test: install-test browser
	$(PY) -m pytest -p no:cacheprovider -n $(PYTEST_WORKERS)

# Screenshots of the reference HTML reports: docs/img/report.png (README) and report-overview.png.
report-screenshots: install-test browser
	$(PY) bench/report_screenshots.py

lint: install-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy tracekit

corpus: install
	$(PY) corpus/generate.py

corpus-check: install
	$(PY) corpus/generate.py --check

$(VENV)/.installed-fuzz: $(VENV)/.installed-test
	$(PIP) install --quiet -e '.[test,dask,fuzz]'
	touch $@

fuzz: install-test $(VENV)/.installed-fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(PY) fuzz/run.py

bench: install-test
	$(PY) bench/run.py
	$(PY) bench/goals.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
