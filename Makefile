# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format e2e bench-engine bench-webhook clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# A local .env with a fresh SECRET_KEY, made once and never committed.
.env:
	@$(PYTHON) -c "import secrets; print('SECRET_KEY=' + secrets.token_urlsafe(50))" > .env
	@echo "Wrote .env with a new SECRET_KEY."

run: $(VENV)/.installed .env
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	$(PY) manage.py sweep_stale_runs
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@echo "Weir is serving on http://$(HOST):$(PORT)/"
	$(BIN)/gunicorn config.wsgi --bind $(HOST):$(PORT) --workers 2 --threads 4 \
		--worker-class config.gunicorn.QueueStampingWorker --access-logfile -

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo

format: $(VENV)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

test: lint
	WEIR_TESTING=1 $(PY) manage.py makemigrations --check --dry-run
	WEIR_TESTING=1 $(BIN)/pytest $(PYTEST_ARGS)
	@# The run store has SQL that differs per backend: on
	@# PostgreSQL (CI), its tests run once more on SQLite so both are covered.
	@case "$$DATABASE_URL" in postgres*) \
		echo "tests/flows/engine/test_store.py, test_deliveries.py again on SQLite"; \
		DATABASE_URL=sqlite://:memory: WEIR_TESTING=1 $(BIN)/pytest -q \
			tests/flows/engine/test_store.py tests/flows/engine/test_deliveries.py;; \
	esac

bench-engine: $(VENV)/.installed
	WEIR_TESTING=1 $(PY) bench/engine.py

bench-webhook: $(VENV)/.installed
	bash bench/webhook.sh

clean:
	rm -rf $(VENV) staticfiles
