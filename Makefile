# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 2

.PHONY: run test lint format e2e bench-engine bench-webhook bench-workers clean

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
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@echo "Weir is serving on http://$(HOST):$(PORT)/ with $(WORKERS) run workers and the supervisor; Ctrl+C stops them all."
	HOST=$(HOST) $(BIN)/honcho start --procfile Procfile --port $(PORT) \
		--concurrency web=1,worker=$(WORKERS),supervisor=1

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
	@# The run store has one function per backend where SQL differs: on
	@# PostgreSQL (CI), its tests run once more on SQLite so both are covered.
	@case "$$DATABASE_URL" in postgres*) \
		echo "tests/flows/engine/test_store.py again on SQLite"; \
		DATABASE_URL=sqlite://:memory: WEIR_TESTING=1 \
			$(BIN)/pytest tests/flows/engine/test_store.py -q;; \
	esac

bench-engine: $(VENV)/.installed
	WEIR_TESTING=1 $(PY) bench/engine.py

bench-webhook: $(VENV)/.installed
	bash bench/webhook.sh

clean:
	rm -rf $(VENV) staticfiles

bench-workers: $(VENV)/.installed
	$(PY) bench/workers.py database
	$(PY) bench/workers.py rq
