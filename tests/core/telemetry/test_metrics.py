"""Exposition: with PROMETHEUS_MULTIPROC_DIR, every process's counters are summed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.processes import run_python

pytestmark = pytest.mark.processes


# Plain processes, as gunicorn workers would be; no Django set-up is needed
# to count or to export.
COUNT_A_RUN = "from flows import metrics; metrics.run_started('webhook')"
SANDBOX_GAUGE = "from sandbox import metrics; metrics.SANDBOX_WORKERS"
SCRAPE = (
    "from core.telemetry.metrics import exposition; print(exposition()[0].decode())"
)


def python(code: str, multiproc_dir: Path) -> str:
    return run_python(code, env={"PROMETHEUS_MULTIPROC_DIR": str(multiproc_dir)})


def test_counters_of_two_processes_are_summed_at_scrape_time(tmp_path):
    python(COUNT_A_RUN, tmp_path)
    python(COUNT_A_RUN, tmp_path)

    text = python(SCRAPE, tmp_path)

    assert 'weir_runs_started_total{trigger="webhook"} 2.0' in text


def test_a_dead_processes_live_gauge_stops_counting_at_scrape_time(tmp_path):
    """What gunicorn's child_exit hook did; granian has no hook, so the scrape
    drops the live gauges of processes that are gone."""
    python(f"{SANDBOX_GAUGE}.set(2)", tmp_path)  # a worker that has exited

    text = python(f"{SANDBOX_GAUGE}.set(1); {SCRAPE}", tmp_path)

    assert "weir_sandbox_workers 1.0" in text
    assert not list(tmp_path.glob("gauge_livesum_*.db"))[1:]  # only the live one
