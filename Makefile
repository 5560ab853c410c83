# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 2
# `make run` is for trying Weir out: the demo superuser is not sent to set up
# two-factor first (production's default is true; README, "Settings").
REQUIRE_2FA_FOR_STAFF ?= false

.PHONY: run test lint format e2e bench-upload bench-engine bench-webhook bench-webhook-p99 bench-workers bench-metrics bench-prune bench-runs-search bench-knowledge bench-scale bench-instructions bench-final-write clean credentials-key

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

# With the example plugin (docs/plugins.md), whose node kind the tests use.
$(VENV)/.installed: pyproject.toml examples/weir-plugin-hello/pyproject.toml | $(BIN)/activate
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e examples/weir-plugin-hello
	touch $@

# A local .env with a fresh SECRET_KEY, made once and never committed.
.env:
	@$(PYTHON) -c "import secrets; print('SECRET_KEY=' + secrets.token_urlsafe(50))" > .env
	@echo "Wrote .env with a new SECRET_KEY."

# A Fernet key for credentials, added once to a .env that lacks one (older
# .env files too); losing it loses every stored credential value.
credentials-key: .env
	@sed -i '/^CREDENTIALS_KEY=$$/d' .env
	@grep -q '^CREDENTIALS_KEY=.' .env || { $(PYTHON) -c "import base64, os; \
		print('CREDENTIALS_KEY=' + base64.urlsafe_b64encode(os.urandom(32)).decode())" \
		>> .env && echo "Added a new CREDENTIALS_KEY to .env."; }

run: $(VENV)/.installed .env credentials-key
	$(PY) manage.py migrate --noinput
	@# PORT reaches the settings, so BASE_URL (webhook URLs) follows the port served.
	PORT=$(PORT) $(PY) manage.py seed_demo
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@echo "Weir is serving on http://$(HOST):$(PORT)/ with $(WORKERS) run workers and the supervisor; Ctrl+C stops them all."
	HOST=$(HOST) WEB_PORT=$(PORT) REQUIRE_2FA_FOR_STAFF=$(REQUIRE_2FA_FOR_STAFF) $(BIN)/honcho start --procfile Procfile --port $(PORT) \
		--concurrency web=1,worker=$(WORKERS),supervisor=1

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo

format: $(VENV)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The suite in two parts (docs/operations.md, "The test suite"): the
# in-process tests and those that start other processes together on
# TEST_WORKERS pytest-xdist workers (the latter spread out among the former:
# tests/conftest.py); then the `timing` tests, which assert on wall-clock time,
# on TIMING_WORKERS: those that start processes (the floods) one after another
# on one worker, the rest, which mostly wait on a clock, beside them. The
# browser tests (Chromium against the production server) are `make e2e`, on
# WAIT_WORKERS. Each worker has a test database of its own, a copy of one
# migrated template (tests/db_template.py): the first part makes them (with
# `--create-db` in PYTEST_ARGS, as CI passes), the later parts reuse them. Every part runs; any failing fails `make test` (exit 5,
# "no test selected", is not a failure). Python writes its bytecode once for
# every process the suite starts, whatever PYTHONDONTWRITEBYTECODE says.
TEST_WORKERS ?= 4
WAIT_WORKERS ?= 4
TIMING_WORKERS ?= 2
LATER_ARGS = $(filter-out --create-db,$(PYTEST_ARGS))

test: lint
	WEIR_TESTING=1 $(PY) manage.py makemigrations --check --dry-run
	@status=0; export PYTHONDONTWRITEBYTECODE=; \
	echo "In-process tests and those that start processes, on $(TEST_WORKERS) workers"; \
	WEIR_TESTING=1 $(BIN)/pytest -n $(TEST_WORKERS) -m "not timing and not e2e" \
		$(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	echo "Tests that measure time, on $(TIMING_WORKERS) workers: those starting processes one at a time"; \
	WEIR_TESTING=1 $(BIN)/pytest -n $(TIMING_WORKERS) --dist loadgroup -m timing $(LATER_ARGS) \
		|| [ $$? -eq 5 ] || status=1; \
	exit $$status
	@# The run store, retention (row locks) and backups differ per backend: on
	@# PostgreSQL (CI), their tests run once more on SQLite so both are covered.
	@case "$$DATABASE_URL" in postgres*) \
		echo "The run store, deliveries, retention and backup tests again on SQLite"; \
		DATABASE_URL=sqlite://:memory: WEIR_TESTING=1 PYTHONDONTWRITEBYTECODE= \
			$(BIN)/pytest tests/flows/engine/test_store.py \
			tests/flows/engine/test_deliveries.py \
			tests/flows/engine/test_retention.py \
			tests/flows/management/commands/test_backup_sqlite.py -q;; \
	esac

# The browser tests: Chromium through Playwright against `python -m
# config.serve`, one server per worker; they mostly wait on the browser.
e2e: $(VENV)/.installed
	WEIR_TESTING=1 PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(WAIT_WORKERS) -m e2e $(PYTEST_ARGS)

bench-engine: $(VENV)/.installed
	WEIR_TESTING=1 $(PY) bench/engine.py

bench-webhook: $(VENV)/.installed
	bash bench/webhook.sh

bench-webhook-p99: $(VENV)/.installed
	bash bench/webhook_p99.sh

bench-metrics: $(VENV)/.installed
	WEIR_TESTING=1 $(PY) bench/metrics_cost.py
	MULTIPROC=1 WEIR_TESTING=1 $(PY) bench/metrics_cost.py

bench-upload: $(VENV)/.installed
	$(PY) bench/upload_cost.py

bench-prune: $(VENV)/.installed
	$(PY) bench/prune.py

bench-runs-search: $(VENV)/.installed
	$(PY) bench/runs_search.py

# Knowledge search: recall@5 against exact search, p95 at 100,000 passages.
bench-knowledge: $(VENV)/.installed
	$(PY) bench/knowledge.py

# Needs wrk and npm (Node-RED is installed from npm into a temporary folder).
bench-scale: $(VENV)/.installed
	$(PY) bench/scale.py

# Needs valgrind, and the database bench-webhook leaves (run that first).
bench-instructions: $(VENV)/.installed
	$(PY) bench/instructions.py

# PostgreSQL's CPU for a synchronous run's write, layer by layer (needs bench-webhook's database).
bench-final-write: $(VENV)/.installed
	$(PY) bench/final_write_pg.py

clean:
	rm -rf $(VENV) staticfiles

bench-workers: $(VENV)/.installed
	$(PY) bench/workers.py database
	$(PY) bench/workers.py rq
