"""usearch's HNSW graph in this process: nothing to run, searched in well under
a millisecond at 100,000 passages (bench/README.md, "Knowledge search")."""

from __future__ import annotations

import numpy as np
from usearch.index import Index

from knowledge.vectors.base import VectorIndex

# How wide the graph search looks: high enough that on the benchmark corpus the
# top five equal exact search's (bench/knowledge.py), still far inside 50 ms.
EXPANSION_SEARCH = 128
EXPANSION_ADD = 128
CONNECTIVITY = 16


class EmbeddedIndex(VectorIndex):
    def build(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        self.index = Index(
            ndim=self.dimensions,
            metric="ip",
            dtype="f32",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )
        if len(keys):
            self.index.add(
                np.asarray(keys, dtype=np.uint64),
                np.asarray(vectors, dtype=np.float32).reshape(-1, self.dimensions),
            )

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        if len(self.index) == 0:
            return []
        found = self.index.search(np.asarray(vector, dtype=np.float32), k)
        # usearch's "ip" distance is 1 - inner product.
        return [
            (int(key), 1.0 - float(distance))
            for key, distance in zip(found.keys, found.distances, strict=True)
        ]
