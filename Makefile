# Rackpass: `make run` to try it, `make test` to check it.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install run test worker beat bench lint fmt clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

## Create the venv, migrate, load demo data, serve on http://127.0.0.1:8000 with a Celery worker
## beside it (tasks queued in files under var/tasks/ unless REDIS_URL is set); Ctrl-C stops both.
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py run_local $(HOST):$(PORT)

## The whole suite: migrations in step with models, the OpenAPI schema builds cleanly, pytest in two
## processes (pytest-xdist; tests that start worker processes stay together in one: tests/conftest.py);
## the ten slowest tests are printed at the end.
PYTEST_PROCESSES ?= -n 2 --dist loadgroup
test: install
	DJANGO_SETTINGS_MODULE=config.settings.test $(PY) manage.py makemigrations --check --dry-run
	DJANGO_SETTINGS_MODULE=config.settings.test $(PY) manage.py spectacular --fail-on-warn --validate --file /dev/null
	$(PY) -m pytest $(PYTEST_PROCESSES) --durations=10 $(PYTEST_ARGS)

## A Celery worker on its own (Redis when REDIS_URL is set, else the file queue under var/tasks/)
worker: install
	$(VENV)/bin/celery -A config worker --loglevel=info

beat: install
	$(VENV)/bin/celery -A config beat --loglevel=info --schedule var/celerybeat-schedule

## Benchmarks: print a table; see docs/benchmarks.md
bench: install
	$(PY) bench/run.py $(BENCH_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

fmt: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
