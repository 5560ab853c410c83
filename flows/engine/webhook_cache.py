"""Webhook targets cached per process, kept fresh by PostgreSQL's NOTIFY.

Every webhook needs its flow's graph, owner, secret and mode (`store.
WEBHOOK_FIELDS`). Reading them is a query and a model instance: ~0.35 ms of
the web process's CPU, a sixth of a webhook's (bench/README.md, "Webhook hot
path, round 2"). So each process keeps the flows its webhooks have used.

Freshness: a database trigger (migration 0013) sends `NOTIFY weir_flow_changed,
'<flow id>'` whenever one of those columns changes or the flow is deleted,
whoever changes it (the API, the admin, a script, another machine). One
thread per process listens and drops that flow from the cache. A change
reaches every process when its transaction commits, within milliseconds; a
webhook that arrives in that moment runs the flow as it was, as it would had
it arrived a moment earlier.

The cache is only used while the listener is connected and listening: from
the moment its connection breaks until it listens again (and has emptied the
cache, since changes in between were not heard), every webhook reads its flow
from the database as before. SQLite has no NOTIFY, so there it is never used;
nor when `WEBHOOK_TARGET_CACHE` is off.
"""

from __future__ import annotations

import logging
import threading
import uuid

import psycopg
from django.conf import settings
from django.db import connections, router
from django.db.models.base import ModelState

from flows.engine import plan, store
from flows.models import Flow

logger = logging.getLogger("weir.targets")

CHANNEL = "weir_flow_changed"
LISTENER_NAME = "weir-flow-listener"  # its connection's application_name
# Past this many flows the cache starts again from empty (memory stays bounded
# whatever the number of flows with webhooks).
MAX_FLOWS = 10_000
# How long the listener waits for a notification before checking its connection.
CHECK_SECONDS = 5.0
RECONNECT_SECONDS = 1.0


class TargetCache:
    def __init__(self):
        self._lock = threading.Lock()
        self._flows: dict[uuid.UUID, Flow] = {}
        self._listening = False
        # Bumped by every change heard: a flow read before a change was heard
        # is not kept (it may be the old version).
        self._changes = 0
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def listening(self) -> bool:
        """Whether the cache is in use (its listener hears every change)."""
        return self._listening

    def webhook_target(self, pk: uuid.UUID) -> Flow | None:
        """The flow with this id if its webhook is enabled, else None: from the
        cache while it is fresh, else read (and kept while fresh)."""
        if not self._listening:
            self._start_listener()
            return store.webhook_target(pk)
        flow = self._flows.get(pk)
        if flow is None:
            changes = self._changes
            flow = store.webhook_target(pk)
            if flow is None:
                return None  # unknown ids are not kept: scanners send many
            with self._lock:
                if self._listening and changes == self._changes:
                    if len(self._flows) >= MAX_FLOWS:
                        self._flows.clear()
                    # Its graph's plans, made by its first runs and shared by
                    # the copies (flows/engine/plan.py); dropped with the flow.
                    setattr(flow, plan.PLANS, {})
                    self._flows[pk] = flow
        # A copy per request: fields loaded later, and anything a run sets on
        # its flow, stay with that request.
        return _copy(flow)

    def forget(self, pk: uuid.UUID | None = None) -> None:
        """Drop one flow (None: every flow) from the cache."""
        with self._lock:
            self._changes += 1
            if pk is None:
                self._flows.clear()
            else:
                self._flows.pop(pk, None)

    def stop(self) -> None:
        """Stop listening and empty the cache (tests, before their database is
        dropped). The listener is woken by a notification of its own."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return
        self._stopping.set()
        with connections[router.db_for_write(Flow)].cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, 'stop')", [CHANNEL])
        thread.join(CHECK_SECONDS + 1)
        self._stopping.clear()

    def _start_listener(self) -> None:
        if not enabled():
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(
                target=self._listen_forever, name="weir-targets", daemon=True
            )
            self._thread.start()

    def _listen_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                self._listen()
            except Exception:  # noqa: BLE001 - a lost connection: read, then retry
                logger.warning("Flow change listener lost; reconnecting", exc_info=True)
            finally:
                self._listening = False
                self.forget()
            self._stopping.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        alias = router.db_for_read(Flow)
        params = connections[alias].get_connection_params()
        params["application_name"] = LISTENER_NAME
        with psycopg.connect(**params, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            self.forget()  # changes made while nobody listened were not heard
            self._listening = True
            while not self._stopping.is_set():
                for note in conn.notifies(timeout=CHECK_SECONDS):
                    self.forget(_flow_id(note.payload))
                    if self._stopping.is_set():
                        return
                conn.execute("SELECT 1")  # a dead connection raises here


def _copy(flow: Flow) -> Flow:
    """What `copy.copy(flow)` makes: a new instance of Django's pickled state
    (`Model.__getstate__`: the instance's dict, its `_state` copied, and that
    state's cache of related objects copied one level), made directly. The
    generic copy protocol looked the model up by name and checked the Django
    version on every copy; `__getstate__` copies the state through it too and
    scans every value for a memoryview, which no webhook target holds
    (`store.WEBHOOK_FIELDS` has no binary field)."""
    clone = Flow.__new__(Flow)
    clone.__dict__.update(flow.__dict__)
    state = clone._state = ModelState.__new__(ModelState)
    state.__dict__.update(flow._state.__dict__)
    state.fields_cache = flow._state.fields_cache.copy()
    return clone


def _flow_id(payload: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(payload)
    except ValueError:
        return None  # not ours: forget everything, to be safe


def enabled() -> bool:
    alias = router.db_for_read(Flow)
    return settings.WEBHOOK_TARGET_CACHE and connections[alias].vendor == "postgresql"


targets = TargetCache()
webhook_target = targets.webhook_target
