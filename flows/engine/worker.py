"""The database engine's worker: queued runs first, then other tasks.

A background run has no task row on the database engine (flows/engine/enqueue_db.py):
each turn the worker claims the next due queued run (`background.execute_next`)
and executes it; with none due, it takes one ready django-tasks-db task (a
knowledge document to index, or a run's task queued before runs became their
own tasks) as django-tasks-db's own worker does; with neither, it waits on
NOTIFY up to its poll interval (flows/engine/queue_listener.py).

Signals behave as django-tasks-db's: SIGINT or SIGTERM lets the run or task in
hand finish, then the worker exits; a second one ends it at once.
"""

from __future__ import annotations

import logging

from django.db import OperationalError, close_old_connections
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from flows.engine.background import execute_next
from flows.engine.queue_listener import Wakeup

logger = logging.getLogger("weir.worker")


class RunWorker(Worker):
    """django-tasks-db's worker taking queued runs from the runs table, and
    waiting on `Wakeup` when idle instead of sleeping."""

    def __init__(self, **options):
        super().__init__(**options)
        self.wakeup = Wakeup()

    def run(self) -> None:
        logger.info("Starting worker worker_id=%s", self.worker_id)
        while self.running:
            close_old_connections()  # dropped or expired ones, after a wait
            busy = self.turn()
            close_old_connections()
            if busy is False and self.batch:
                logger.info("Nothing left to run; worker_id=%s exits", self.worker_id)
                return
            if not busy and self.running:
                self.wakeup.wait(self.interval)

    def turn(self) -> bool | None:
        """Execute one due run, else one ready task: whether there was one
        (None: SQLite was locked, so nobody knows)."""
        self.running_task = True  # a signal now lets the run finish
        try:
            if execute_next():
                return True
        except OperationalError as error:
            if not is_locked_database_exception(error):
                raise
            return None
        finally:
            self.running_task = False
        tasks = DBTaskResult.objects.ready().filter(
            backend_name=self.backend_name, queue_name__in=self.queue_names
        )
        try:
            with exclusive_transaction(tasks.db):
                task = tasks.get_locked()
                if task is not None:
                    task.claim(self.worker_id)  # no other worker runs it
        except OperationalError as error:
            if not is_locked_database_exception(error):
                raise
            return None
        if task is None:
            return False
        self.run_task(task)
        return True
