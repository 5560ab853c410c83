"""One migrated PostgreSQL database the suite's test databases are copied from.

Each pytest-xdist worker has a test database of its own, and pytest-django
makes each by running every migration: about 7 s of CPU (and PostgreSQL's) per
worker, four at once when `make test` starts. Instead, the first worker to get
here migrates one template under a file lock, and every test database is made
with `CREATE DATABASE ... TEMPLATE` (a file copy); the migrate pytest-django
still runs afterwards finds nothing to do. The template's name holds a digest
of every migration file, so a new or changed migration makes a new template
(and the old ones are dropped).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from django.apps import apps
from django.conf import settings

PREFIX = "weir_test_template_"


def migrations_digest() -> str:
    """A digest of every installed app's migration files."""
    digest = hashlib.sha256()
    for app in sorted(apps.get_app_configs(), key=lambda config: config.label):
        folder = Path(app.path) / "migrations"
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


def _admin(database: dict) -> psycopg.Connection:
    return psycopg.connect(
        dbname="postgres",
        host=database.get("HOST") or None,
        port=database.get("PORT") or None,
        user=database.get("USER") or None,
        password=database.get("PASSWORD") or None,
        autocommit=True,
    )


def _exists(conn: psycopg.Connection, name: str) -> bool:
    query = "SELECT 1 FROM pg_database WHERE datname = %s"
    return conn.execute(query, [name]).fetchone() is not None


def _migrate(name: str) -> None:
    """Run the migrations on database `name` in a process of its own, as the
    suite's settings (WEIR_TESTING) would."""
    url = urlsplit(os.environ["DATABASE_URL"])
    env = {**os.environ, "DATABASE_URL": urlunsplit(url._replace(path=f"/{name}"))}
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    subprocess.run(
        [*manage, "migrate", "--noinput", "-v0"],
        env=env,
        check=True,
        capture_output=True,
    )


def _drop_others(conn: psycopg.Connection, name: str) -> None:
    """Drop the templates of other migrations; one another checkout is
    copying from right now is left for next time."""
    query = "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s"
    for (other,) in conn.execute(query, [PREFIX + "%", name]).fetchall():
        try:
            conn.execute(f'DROP DATABASE IF EXISTS "{other}"')
        except psycopg.errors.ObjectInUse:
            continue


def use_template(database: dict, *, remade: bool) -> None:
    """Make this process's test database, when it is made (`remade`, as with
    `--create-db`, or missing), a copy of the migrated template, built here
    first if no process has built it yet."""
    test = database.setdefault("TEST", {})
    test_name = test.get("NAME") or "test_" + database["NAME"]
    name = PREFIX + migrations_digest()
    lock = Path(tempfile.gettempdir()) / f"{name}.lock"
    with _admin(database) as conn, lock.open("w") as held:
        if not remade and _exists(conn, test_name):
            return  # kept as it is (--reuse-db): nothing is made
        fcntl.flock(held, fcntl.LOCK_EX)  # until the file is closed
        if not _exists(conn, name):
            building = name + "_building"
            conn.execute(f'DROP DATABASE IF EXISTS "{building}"')
            conn.execute(f'CREATE DATABASE "{building}"')
            _migrate(building)
            conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
            _drop_others(conn, name)
    test["TEMPLATE"] = name
