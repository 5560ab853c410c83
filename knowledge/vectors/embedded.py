"""The index in this process: nothing to run. A base of up to `EXACT_BELOW`
passages is scanned exhaustively with numpy (a few milliseconds, no graph to
build, exactly exact search's answer); a larger one goes into usearch's HNSW
graph, whose candidates are ranked again by their exact inner products
(bench/README.md, "Knowledge search": p95 and agreement with exact search at
100,000)."""

from __future__ import annotations

import numpy as np
from usearch.index import Index

from knowledge.vectors.base import ExactIndex, VectorIndex

EXACT_BELOW = 20_000
# How wide the graph is built and searched, and how many candidates a search
# returns to be ranked again (ties broken by key, as exact search does).
CONNECTIVITY = 32
EXPANSION_ADD = 256
EXPANSION_SEARCH = 512
CANDIDATES = 128


class EmbeddedIndex(VectorIndex):
    exact_below = EXACT_BELOW

    def build(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        self.exact = self.graph = None
        if len(keys) <= self.exact_below:
            self.exact = ExactIndex(self.name, self.dimensions)
            self.exact.build(keys, vectors)
            return
        self.graph = Index(
            ndim=self.dimensions,
            metric="ip",
            dtype="f32",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )
        self.graph.add(
            np.asarray(keys, dtype=np.uint64),
            np.asarray(vectors, dtype=np.float32).reshape(-1, self.dimensions),
        )

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self.exact is not None:
            return self.exact.search(vector, k)
        vector = np.asarray(vector, dtype=np.float32)
        found = self.graph.search(vector, max(k, CANDIDATES))
        keys = np.asarray(found.keys, dtype=np.uint64)
        scores = np.asarray(self.graph.get(keys), dtype=np.float32) @ vector
        return ranked(keys, scores, k)


def ranked(keys: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The `k` best (key, score), highest score first, ties by smaller key."""
    order = np.lexsort((keys, -scores))[:k]
    return [(int(keys[i]), float(scores[i])) for i in order]
