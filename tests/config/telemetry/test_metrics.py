"""Exposition: with PROMETHEUS_MULTIPROC_DIR, every process's counters are summed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# Plain processes, as gunicorn workers would be; no Django set-up is needed
# to count or to export.
COUNT_A_RUN = "from flows.lib import metrics; metrics.run_started('webhook')"
SCRAPE = (
    "from config.telemetry.metrics import exposition; print(exposition()[0].decode())"
)


def python(code: str, multiproc_dir: Path) -> str:
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(multiproc_dir),
        "WEIR_TESTING": "1",
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


def test_counters_of_two_processes_are_summed_at_scrape_time(tmp_path):
    python(COUNT_A_RUN, tmp_path)
    python(COUNT_A_RUN, tmp_path)

    text = python(SCRAPE, tmp_path)

    assert 'weir_runs_started_total{trigger="webhook"} 2.0' in text
