"""Qdrant through qdrant-client: a server (KNOWLEDGE_QDRANT_URL), or its local
mode in a folder (KNOWLEDGE_QDRANT_PATH) or in memory (the tests). One
collection per base; the database stays the source of truth, so a collection is
rebuilt from it whenever the base changed."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from core.startup import import_on_first_use
from knowledge.vectors.base import VectorIndex

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

BATCH = 1_000
_client: QdrantClient | None = None
_client_lock = threading.Lock()


def client() -> QdrantClient:
    """One client per process (local mode allows one per folder). The
    library is imported on first use (core/startup.py): this engine is not
    the default."""
    global _client
    with _client_lock:
        if _client is None:
            if settings.KNOWLEDGE_QDRANT_URL:
                _client = import_on_first_use("qdrant_client").QdrantClient(
                    url=settings.KNOWLEDGE_QDRANT_URL
                )
            else:
                _client = import_on_first_use("qdrant_client").QdrantClient(
                    settings.KNOWLEDGE_QDRANT_PATH or ":memory:"
                )
        return _client


class QdrantIndex(VectorIndex):
    def build(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        qdrant = client()
        models = import_on_first_use("qdrant_client.models")
        if qdrant.collection_exists(self.name):
            qdrant.delete_collection(self.name)
        qdrant.create_collection(
            self.name,
            vectors_config=models.VectorParams(
                size=self.dimensions, distance=models.Distance.COSINE
            ),
        )
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dimensions)
        for start in range(0, len(keys), BATCH):
            qdrant.upsert(
                self.name,
                points=models.Batch(
                    ids=[int(key) for key in keys[start : start + BATCH]],
                    vectors=vectors[start : start + BATCH].tolist(),
                ),
            )

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        found = client().query_points(
            self.name, query=np.asarray(vector, dtype=np.float32).tolist(), limit=k
        )
        return [(int(point.id), float(point.score)) for point in found.points]
