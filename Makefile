# Two commands for the repository:
#   make course   install the student's environment into .venv and open the course as a
#                 student gets it: a workspace (micrograd-edu-course/) made from this
#                 checkout's lectures and exercises, never solutions/
#   make test     install the developers' environment into .venv and run everything CI runs
# Both need only Python >= 3.11 and make, and are safe to run again.
# For the instructor: `make package-test` builds the wheel and checks what a student and a
# class hub get from it (a fresh environment, two students on a local JupyterHub).
# For the developer's inner loop, `make unit` runs the engines', nn's, optim's and
# viz's unit and property tests and doctests (no notebooks, grader, browser or course).

PYTHON ?= python3
VENV   ?= .venv
PORT   ?= 8888
BIN    := $(VENV)/bin
COURSE_STAMP := $(VENV)/.installed-course
DEV_STAMP    := $(VENV)/.installed-dev

.PHONY: course notebook test unit install sandbox lint browser package-test benchmarks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A student's extra only: JupyterLab, Notebook 7, the kernel, scikit-learn (no test tools,
# no system package).
$(COURSE_STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[course]"
	touch $(COURSE_STAMP)

$(DEV_STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[course,dev]"
	touch $(COURSE_STAMP) $(DEV_STAMP)

# The developers' and instructors' environment: the course, the test tools, and bubblewrap
# for the batch grader's sandbox.
install: $(DEV_STAMP) sandbox

# What a student sees: the lectures in notebooks/ and the exercises in exercises/ of the
# workspace, opened on chapter 00; solutions/ stays here, in the repository. Run again, it
# brings your edits of notebooks/ and exercises/ into the workspace by the student's rule
# (a notebook you worked in there is kept, the new version put beside it).
course: $(COURSE_STAMP)
	$(BIN)/micrograd-edu course --port=$(PORT)

notebook: $(COURSE_STAMP)
	$(BIN)/micrograd-edu course --app=notebook --port=$(PORT)

# Grading runs each submission in bubblewrap: install it when missing and we may (root +
# apt-get); elsewhere `micrograd-edu doctor` says whether grading is sandboxed, and the fix.
# An instructor's concern only: `make course` never installs a system package.
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

# Two processes (pytest-xdist): the tests that share a notebook's run, and a module's tests,
# stay on one (tests/conftest.py).
test: install lint browser
	$(BIN)/python -m pytest -n 2 --dist loadgroup

# The wheel as a student and a class hub get it, in environments of their own (a few
# minutes, mostly pip; outside `make test`, which must stay short): see tests/package/.
# The hub's proxy, configurable-http-proxy, comes from the npm registry (Node from apt).
package-test: install
	@if ! command -v npm >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Node and npm for the class hub's proxy"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	fi
	$(BIN)/python -m pytest -p no:cacheprovider -o addopts="" tests/package

# Every test file but the grader's, the notebooks', the browsers', the course's (command
# line, data sets, experiments, workspace, install cell, ipywidgets 7) and the differential
# fuzzers' (in `make test`); a new engine test joins by itself.
NOT_UNIT := tests/test_grading_% tests/test_notebook% tests/test_%browser.py \
	tests/test_cli.py tests/test_data.py tests/test_experiments.py tests/test_workspace.py \
	tests/test_install_cell.py tests/test_ipywidgets7.py tests/test_%_fuzz.py
UNIT := $(filter-out $(NOT_UNIT),$(wildcard tests/test_*.py))
UNIT_DOCTESTS := micrograd_edu/rules.py micrograd_edu/functions.py micrograd_edu/scalar \
	micrograd_edu/tensor micrograd_edu/nn micrograd_edu/optim micrograd_edu/init.py \
	micrograd_edu/torchlike micrograd_edu/utils micrograd_edu/serialization.py micrograd_edu/viz

unit: install
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -q -p no:cacheprovider -o addopts="" -n 2 \
	  $(UNIT) --doctest-modules $(UNIT_DOCTESTS)

benchmarks: install
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV)
