# tracekit: two set-up commands on a fresh machine, `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TRACEKIT := $(VENV)/bin/tracekit
FUZZ_SECONDS ?= 180

.PHONY: demo test install install-test corpus corpus-check fuzz bench lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test,dask]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

demo: install
	@echo "== tracekit verify corpus/valid corpus/third_party (exit 0: every trace intact)"
	$(TRACEKIT) verify corpus/valid corpus/third_party/agentguard
	@echo "== tracekit show corpus/third_party/agentguard/safe-trace-v2.jsonl"
	$(TRACEKIT) show corpus/third_party/agentguard/safe-trace-v2.jsonl

test: install-test
	$(PY) -m pytest -p no:cacheprovider

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

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
