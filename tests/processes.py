"""Real processes for fault tests: gunicorn, task workers, the supervisor, and a
private PostgreSQL cluster that a test may restart.

Each process is started in its own session so that `kill_9` ends it with its
children (a sandbox, an rq work horse), the way a lost machine would. They
share the test database (PostgreSQL: another process cannot see SQLite's
in-memory test database), so tests using them are transactional: what the test
writes is committed, and `processes` stops everything before pytest-django
empties the tables.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


def worker_redis_url(base: str, worker: str | None) -> str:
    """The Redis database of this pytest process: `base` itself, or under
    pytest-xdist the one `N` below it for worker `gwN`, so that one worker's
    FLUSHDB and rq queue never reach another's (`make test` runs 2 workers:
    databases 13 and 12 by default)."""
    if not worker or not worker.startswith("gw"):
        return base
    url = urlsplit(base)
    database = int(url.path.strip("/") or 0) - int(worker[2:])
    if database < 0:
        raise RuntimeError(f"no Redis database left for xdist worker {worker}")
    return urlunsplit(url._replace(path=f"/{database}"))


# A Redis database of the suite's own on the shared Redis, for the rq engine;
# each test empties it (FLUSHDB touches this database only).
TEST_REDIS_URL = worker_redis_url(
    os.environ.get("WEIR_TEST_REDIS_URL", "redis://127.0.0.1:6379/13"),
    os.environ.get("PYTEST_XDIST_WORKER"),
)

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="other processes cannot open SQLite's in-memory test database; "
    "CI runs these on PostgreSQL",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict) -> str:
    user = settings_dict.get("USER") or "postgres"
    password = settings_dict.get("PASSWORD")
    auth = f"{user}:{password}" if password else user
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{settings_dict['NAME']}"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return []
    return [int(child) for child in text.split()]


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    port: int | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def children(self) -> list[int]:
        return _children(self.pid)

    def kill_9(self) -> None:
        """SIGKILL to the process and everything it started (rq's work horse
        leaves the process group): no cleanup at all, as on a lost machine."""
        doomed = [self.pid]
        for pid in doomed:
            doomed.extend(_children(pid))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        for pid in doomed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.popen.wait(timeout=10)

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.kill_9()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Processes:
    """Starts Weir's processes against the test database, with `env` added."""

    env: dict
    logs: Path
    started: list[Process] = field(default_factory=list)

    def spawn(self, name: str, args: list[str], env: dict | None = None) -> Process:
        log = self.logs / f"{name}-{len(self.started)}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                args,
                cwd=ROOT,
                env={**self.env, **(env or {})},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process = Process(name, popen, log)
        self.started.append(process)
        return process

    def manage(self, *args: str, env: dict | None = None) -> Process:
        return self.spawn(args[0], [sys.executable, "manage.py", *args], env)

    def web(self, *, workers: int = 1, threads: int = 4, env=None) -> Process:
        port = free_port()
        gunicorn = Path(sys.executable).with_name("gunicorn")
        args = [str(gunicorn), "config.wsgi", "--bind", f"127.0.0.1:{port}"]
        args += ["--workers", str(workers), "--threads", str(threads)]
        args += ["--no-control-socket"]  # one per machine by default
        process = self.spawn("web", args, env)
        process.port = port

        def answering():
            if process.popen.poll() is not None:
                raise AssertionError(f"gunicorn exited:\n{process.output()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return True
            except OSError:
                return False

        assert wait_until(answering, 90), process.output()
        # The first request imports the app; pay for it here, not in the test.
        get(process, "/login/")
        return process

    def worker(self, env=None) -> Process:
        return self.manage("work", env=env)

    def supervisor(self, env=None) -> Process:
        """The supervisor loop, once it is up (a cold start can take seconds)."""
        process = self.manage("supervise", env=env)
        assert wait_until(lambda: "Supervising" in process.output(), 90)
        return process

    def stop_all(self) -> None:
        for process in reversed(self.started):
            process.stop()


def request(process: Process, method: str, path: str, body=None, headers=None):
    """(status, headers, parsed JSON or text) from a started web process."""
    conn = http.client.HTTPConnection("127.0.0.1", process.port, timeout=60)
    try:
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = raw.decode(errors="replace")
    return response.status, response.headers, parsed


def get(process: Process, path: str):
    return request(process, "GET", path)


def run_python(code: str, *args: str, env: dict | None = None, timeout=120) -> str:
    """Run `python -c code args` from the project with the test settings and
    this environment (plus `env`); its output, or CalledProcessError."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env={
            **os.environ,
            "WEIR_TESTING": "1",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        },
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout


def base_env() -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST", "DJANGO_SETTINGS"))
    }
    env.update(
        WEIR_TESTING="1",
        DEBUG="false",
        DATABASE_URL=database_url(connection.settings_dict),
        WEIR_ENV_FILE="/nonexistent",  # a developer's .env must not leak in
        LOG_LEVEL="WARNING",
        SUPERVISE_INTERVAL_SECONDS="0.5",
        RUN_LEASE_SECONDS="2",
        WORKER_POLL_SECONDS="0.05",
        TASKS_REDIS_URL=TEST_REDIS_URL,
    )
    return env


@pytest.fixture
def processes(transactional_db, tmp_path):
    """Start real processes on the test database; all killed at the end.

    Depends on `transactional_db` so that they are gone before its flush.
    """
    started = Processes(base_env(), tmp_path)
    yield started
    started.stop_all()


@pytest.fixture(params=["database", "rq"])
def engine(request, processes, settings):
    """Each background-run test once per task engine: the started processes
    and this one's `enqueue` use it."""
    processes.env["TASKS_BACKEND"] = request.param
    if request.param == "rq":
        import redis

        redis.Redis.from_url(TEST_REDIS_URL).flushdb()
        settings.RQ_QUEUES = {"default": {"URL": TEST_REDIS_URL}}
        settings.TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend"}}
    return request.param


@dataclass
class PostgresCluster:
    """A PostgreSQL server of the test's own, on a free port: safe to restart."""

    directory: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/weir"

    def pg_ctl(self, *args: str) -> None:
        command = [str(PG_BIN[-1] / "pg_ctl"), "-D", str(self.directory / "data")]
        command += [*args]
        subprocess.run(as_postgres(command), check=True, capture_output=True)

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 "
            # fsync off: fast, and a killed server loses nothing the kernel
            # has. synchronous_commit stays on: with it off, an immediate stop
            # loses the last commits, which a real server would keep.
            "-c fsync=off -c full_page_writes=off"
        )
        self.pg_ctl(
            "start", "-w", "-l", str(self.directory / "server.log"), "-o", options
        )

    def stop(self, mode: str = "fast") -> None:
        self.pg_ctl("stop", "-w", "-m", mode)

    def restart(self) -> None:
        """An immediate stop (every connection cut, as in a crash), then start."""
        self.stop("immediate")
        self.start()

    def migrated_env(self) -> dict:
        """The processes' environment pointed at this cluster, its database
        migrated."""
        env = {**base_env(), "DATABASE_URL": self.url}
        manage_py(env, "migrate", "-v0")
        return env


def manage_py(env: dict, *args: str) -> str:
    """Run `manage.py args` in this environment; its standard output."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def as_postgres(command: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root; run them as `postgres` then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


@pytest.fixture
def private_postgres():
    """A fresh cluster with an empty database `weir`; stopped and deleted after."""
    if not PG_BIN:
        pytest.fail("PostgreSQL server binaries not found in /usr/lib/postgresql")
    directory = Path(tempfile.mkdtemp(prefix="weir-pg-"))
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    cluster = PostgresCluster(directory, free_port())
    initdb = [str(PG_BIN[-1] / "initdb"), "-D", str(directory / "data")]
    initdb += ["-A", "trust", "-U", "postgres", "--no-sync"]
    subprocess.run(as_postgres(initdb), check=True, capture_output=True)
    cluster.start()
    subprocess.run(
        [str(PG_BIN[-1] / "createdb"), "-h", "127.0.0.1", "-p", str(cluster.port)]
        + ["-U", "postgres", "weir"],
        check=True,
        capture_output=True,
    )
    yield cluster
    try:
        cluster.stop("immediate")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
