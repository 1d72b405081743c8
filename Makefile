# Two commands for a fresh machine:
#   make course   install into .venv and open the course in JupyterLab
#   make test     install into .venv and run everything CI runs
# Both need only Python >= 3.10 and make, and are safe to run again.
# For the developer's inner loop, `make unit` runs the engines', nn's, optim's and
# viz's unit and property tests and doctests (no notebooks, grader, browser or course).

PYTHON ?= python3
VENV   ?= .venv
PORT   ?= 8888
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: course notebook test unit install sandbox lint browser benchmarks clean

install: $(STAMP) sandbox

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[course,dev]"
	touch $(STAMP)

# The server's root is the repository, so exercises/ is one click away; the URL it
# prints (and the browser, where there is a screen) opens the first chapter, with the
# file browser in notebooks/. `make notebook` does the same in Notebook 7.
course: install
	$(BIN)/micrograd-edu course --port=$(PORT)

notebook: install
	$(BIN)/micrograd-edu course --app=notebook --port=$(PORT)

# Grading runs each submission in bubblewrap: install it when missing and we may (root +
# apt-get); elsewhere `micrograd-edu doctor` says whether grading is sandboxed, and the fix.
sandbox:
	@if ! command -v bwrap >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing bubblewrap for the grader's sandbox"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	fi

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The browser test drives Debian's chromium through Playwright (Playwright's own
# browser download is not needed). Install it when missing and we may (root +
# apt-get); otherwise the test skips with the reason (and fails when CI is set).
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium for the browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "chromium is missing and cannot be installed here: the browser test will skip"; \
	fi

test: install lint browser
	$(BIN)/python -m pytest

# Every test file but the grader's, the notebooks', the browsers', the course's (command
# line, data sets, experiments) and the differential fuzzer's (a minute of its own, in
# `make test`); a new engine test joins by itself.
NOT_UNIT := tests/test_grading_% tests/test_notebook% tests/test_%browser.py \
	tests/test_cli.py tests/test_data.py tests/test_experiments.py tests/test_tensor_fuzz%
UNIT := $(filter-out $(NOT_UNIT),$(wildcard tests/test_*.py))
UNIT_DOCTESTS := micrograd_edu/rules.py micrograd_edu/functions.py micrograd_edu/scalar \
	micrograd_edu/tensor micrograd_edu/nn micrograd_edu/optim micrograd_edu/init.py \
	micrograd_edu/torchlike.py micrograd_edu/viz

unit: install
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -q -p no:cacheprovider -o addopts="" \
	  $(UNIT) --doctest-modules $(UNIT_DOCTESTS)

benchmarks: install
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV)
