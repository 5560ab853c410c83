"""A large base's HNSW graph: built by a worker and stored on disk, never by
a search (docs/knowledge.md, "Search").

A base of more than `KNOWLEDGE_EXACT_BELOW` passages on the `embedded` index
is searched through a usearch graph. Building one takes minutes at 100,000
passages, so a change only queues the task `build_graph`; the worker writes
the graph to `KNOWLEDGE_GRAPH_DIR/<base>/v<version>-k<max key>.usearch`,
through a temporary file renamed into place (two builds at once each rename
a whole file; a build killed half-way leaves only a temporary file, never a
graph). Meanwhile a search uses the newest stored graph for the passages it
holds plus an exact scan of those added since (keys above its max key),
dropping passages deleted since; with no graph yet, an exact scan of all.

A build is queued once per base version and lease (`BUILD_LEASE_SECONDS`, in
Django's cache): a search that still finds the graph stale after the lease
(its worker was killed) queues it again.
"""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django_tasks import task
from usearch.index import Index

from knowledge.models import Chunk, KnowledgeBase
from knowledge.vectors.embedded import CANDIDATES, EmbeddedIndex, ranked

BUILD_LEASE_SECONDS = 600
GRAPH_FILE = re.compile(r"^v(\d+)-k(\d+)\.usearch$")
_loaded: dict[Path, Index] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class StoredGraph:
    version: int
    max_key: int
    path: Path


def folder(base_id) -> Path:
    return Path(settings.KNOWLEDGE_GRAPH_DIR) / uuid.UUID(str(base_id)).hex


def latest(base_id) -> StoredGraph | None:
    """The newest graph stored for the base (one directory listing)."""
    found = []
    with_files = folder(base_id)
    if not with_files.is_dir():
        return None
    for path in with_files.iterdir():
        match = GRAPH_FILE.match(path.name)
        if match:
            found.append(StoredGraph(int(match[1]), int(match[2]), path))
    return max(found, key=lambda graph: graph.version, default=None)


def after_change(base_id) -> None:
    """Queue a build for a base whose passages changed, when it is searched
    through a graph (past `KNOWLEDGE_EXACT_BELOW`, or it has one to replace).
    Costs a count."""
    if settings.KNOWLEDGE_INDEX != "embedded":
        return
    large = (
        Chunk.objects.filter(base_id=base_id).count() > settings.KNOWLEDGE_EXACT_BELOW
    )
    if large or latest(base_id) is not None:
        bases = KnowledgeBase.objects.filter(pk=base_id)
        version = bases.values_list("version", flat=True).first()
        if version is not None:
            queue_build(base_id, version)


def queue_build(base_id, version: int) -> bool:
    """Enqueue `build_graph` for this version of the base, unless one was
    queued within the lease; whether it was queued."""
    if not cache.add(f"knowledge-graph:{base_id}:{version}", 1, BUILD_LEASE_SECONDS):
        return False
    transaction.on_commit(lambda: build_graph.enqueue(str(base_id)))
    return True


@task
def build_graph(base_id: str) -> str | None:
    """The task a worker runs; the stored graph's path, or None (gone, small
    enough to scan, or already built)."""
    return build_now(base_id)


def build_now(base_id: str) -> str | None:
    # The version first: passages changed after it make the graph look stale
    # (a newer build), never fresher than it is.
    version = (
        KnowledgeBase.objects.filter(pk=base_id)
        .values_list("version", flat=True)
        .first()
    )
    if version is None:
        return None
    current = latest(base_id)
    if current is not None and current.version >= version:
        return None
    rows = list(
        Chunk.objects.filter(base_id=base_id).order_by("id").values_list("id", "vector")
    )
    if len(rows) <= settings.KNOWLEDGE_EXACT_BELOW:
        _prune(folder(base_id), keep=None)
        return None
    keys = np.fromiter((row[0] for row in rows), dtype=np.uint64, count=len(rows))
    vectors = np.stack([np.frombuffer(bytes(row[1]), dtype=np.float32) for row in rows])
    graph = EmbeddedIndex("graph", vectors.shape[1])
    graph.exact_below = 0
    graph.build(keys, vectors)
    where = folder(base_id)
    where.mkdir(parents=True, exist_ok=True)
    target = where / f"v{version}-k{int(keys.max())}.usearch"
    temporary = where / f".{uuid.uuid4().hex}.tmp"
    graph.graph.save(str(temporary))
    os.replace(temporary, target)  # atomic: a reader sees no file or all of it
    _prune(where, keep=target)
    return str(target)


def _prune(where: Path, keep: Path | None) -> None:
    """Older graphs, and temporary files a killed build left past the lease."""
    if not where.is_dir():
        return
    keep_version = int(GRAPH_FILE.match(keep.name)[1]) if keep else None
    for path in where.iterdir():
        match = GRAPH_FILE.match(path.name)
        stale_graph = match and (keep is None or int(match[1]) < keep_version)
        old_temporary = path.suffix == ".tmp" and (
            time.time() - path.stat().st_mtime > BUILD_LEASE_SECONDS
        )
        if stale_graph or old_temporary:
            path.unlink(missing_ok=True)


def loaded(stored: StoredGraph, base_id) -> GraphAndNewer | None:
    """The stored graph as this base's index (read once per process); None
    when the file went since it was listed (a newer build pruned it)."""
    with _lock:
        graph = _loaded.get(stored.path)
        if graph is None:
            for path in [p for p in _loaded if p.parent == stored.path.parent]:
                del _loaded[path]
            try:
                graph = Index.restore(str(stored.path))
            except (OSError, RuntimeError):
                graph = None
            if graph is None:
                return None
            _loaded[stored.path] = graph
    return GraphAndNewer(base_id, graph, stored.max_key)


class GraphAndNewer:
    """A stored graph's candidates still in the base, with the passages added
    since it was built scanned exactly, ranked together. Searches like a
    `VectorIndex`; a worker built it (`build_now`). Costs two queries."""

    def __init__(self, base_id, graph: Index, max_key: int):
        self.base_id, self.graph, self.max_key = base_id, graph, max_key

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        vector = np.asarray(vector, dtype=np.float32)
        found = self.graph.search(vector, max(k, CANDIDATES))
        candidates = [int(key) for key in found.keys]
        chunks = Chunk.objects.filter(base_id=self.base_id)
        alive = set(chunks.filter(id__in=candidates).values_list("id", flat=True))
        keys = [key for key in candidates if key in alive]
        vectors = (
            list(self.graph.get(np.asarray(keys, dtype=np.uint64))) if keys else []
        )
        for key, raw in chunks.filter(id__gt=self.max_key).values_list("id", "vector"):
            keys.append(key)
            vectors.append(np.frombuffer(bytes(raw), dtype=np.float32))
        if not keys:
            return []
        scores = np.stack(vectors).astype(np.float32) @ vector
        return ranked(np.asarray(keys, dtype=np.uint64), scores, k)
