"""Vector indexes behind one interface (`VectorIndex`): `build(keys, vectors)`
then `search(vector, k)` -> [(key, score)], best first, score the cosine
similarity of unit vectors. `embedded` (usearch's HNSW, in this process) is the
default; `qdrant` keeps the vectors in Qdrant; `exact` (numpy) is the
benchmark's yardstick."""

from __future__ import annotations

from django.conf import settings

from knowledge.vectors.base import ExactIndex, VectorIndex
from knowledge.vectors.embedded import EmbeddedIndex
from knowledge.vectors.qdrant import QdrantIndex

ENGINES = {"embedded": EmbeddedIndex, "qdrant": QdrantIndex, "exact": ExactIndex}


def new_index(name: str, dimensions: int, engine: str | None = None) -> VectorIndex:
    """An empty index for the base called `name` (Qdrant's collection)."""
    engine = engine or settings.KNOWLEDGE_INDEX
    if engine not in ENGINES:
        raise ValueError(f"KNOWLEDGE_INDEX is {engine!r}; one of {sorted(ENGINES)}.")
    return ENGINES[engine](name, dimensions)


__all__ = ["ENGINES", "VectorIndex", "new_index"]
