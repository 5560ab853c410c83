"""`manage.py backup_sqlite DEST`: a consistent copy of the SQLite database.

Uses SQLite's online backup API, so the copy is consistent while the server
keeps writing (copying the file could catch a half-written page or miss the
WAL). For PostgreSQL use pg_dump (docs/operations.md, "Back up and restore").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections


class Command(BaseCommand):
    help = "Copy the SQLite database to DEST with the online backup API."

    def add_arguments(self, parser):
        parser.add_argument("destination", help="Path of the backup file to write.")
        parser.add_argument("--database", default="default")

    def handle(self, *args, destination, database, **options):
        target = Path(destination)
        if target.exists():
            raise CommandError(f"{target} exists; choose a new file.")
        connection = connections[database]
        if connection.vendor != "sqlite":
            raise CommandError(
                f"The {database!r} database is {connection.vendor}; use pg_dump."
            )
        connection.ensure_connection()
        with sqlite3.connect(target) as copy:
            # Pages in steps of 1024, so writers are not held off for long.
            connection.connection.backup(copy, pages=1024)
        copy.close()
        self.stdout.write(f"Backed up to {target}.")
