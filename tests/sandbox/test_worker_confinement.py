"""A sandbox worker cannot reach the disk or gain privileges, root or not.

Should hostile JavaScript ever escape QuickJS, it lands in a process that is
shut in an empty, deleted directory (chroot), runs as `nobody` when the server
was started as root, and has PR_SET_NO_NEW_PRIVS set.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

import sandbox
from sandbox import pool as pool_module

pytestmark = pytest.mark.processes


VARIABLES = {"input": {}, "prev": None, "results": {}}
NOBODY = 65534


def status_of(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


@pytest.fixture
def secrets(tmp_path):
    """A world-readable .env and SQLite file, as a careless deployment leaves them."""
    env_file = tmp_path / ".env"
    env_file.write_text("SECRET_KEY=do-not-leak\n")
    database = tmp_path / "db.sqlite3"
    sqlite3.connect(database).execute("create table t (x)").connection.close()
    for path in (tmp_path, env_file, database):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return [env_file, database, settings.BASE_DIR / "manage.py"]


def try_to_read(paths: list[Path], *, as_uid: int | None = None) -> dict:
    """Start a worker process as the pool does, confine it, then try each path.

    `as_uid` first drops the process to that uid, as a server started without
    root would be (the interpreter itself lives where `nobody` cannot exec it);
    it then marks itself dumpable again, as a process that never was root is.
    """
    become = (
        "import os, ctypes; os.setgroups([]);"
        f" os.setgid({as_uid}); os.setuid({as_uid});"
        " ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)\n"  # PR_SET_DUMPABLE
    )
    probe = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import worker\n"
        + (become if as_uid is not None else "")
        + "level = worker.confine(); seen = {}\n"
        "for path in sys.argv[2:]:\n"
        "    try:\n"
        "        with open(path, 'rb') as f: seen[path] = f.read(20).hex()\n"
        "    except OSError as error: seen[path] = type(error).__name__\n"
        "uid = __import__('os').getuid()\n"
        "print(json.dumps({'level': level, 'seen': seen, 'uid': uid}))"
    )
    finished = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(Path(pool_module.WORKER_SCRIPT).parent)]
        + [str(path) for path in paths],
        capture_output=True,
        env={},
        cwd="/",
        timeout=30,
        check=True,
    )
    return json.loads(finished.stdout)


def test_a_confined_worker_cannot_open_the_env_file_the_database_or_the_project(
    secrets,
):
    report = try_to_read(secrets)

    assert report["level"] == "chroot"
    assert report["uid"] == NOBODY
    assert set(report["seen"].values()) <= {"FileNotFoundError", "PermissionError"}


def test_a_worker_started_without_root_is_shut_out_of_the_disk_too(secrets):
    report = try_to_read(secrets, as_uid=NOBODY)

    assert report["level"] == "chroot"
    assert set(report["seen"].values()) <= {"FileNotFoundError", "PermissionError"}


def test_pool_workers_run_confined_without_privileges():
    sandbox.run_code("return 1", VARIABLES)
    [pid, *_] = sandbox.worker_pool().pids()

    status = status_of(pid)
    assert status["NoNewPrivs"] == "1"
    assert status["Uid"].split()[0] != "0"
    assert status["CapEff"] == "0000000000000000"
    assert os.readlink(f"/proc/{pid}/root") != "/"
    assert sandbox.run_code("return input", {**VARIABLES, "input": {"a": 1}}).value == {
        "a": 1
    }
