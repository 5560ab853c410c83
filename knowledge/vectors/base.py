"""The vector index interface, and exact search as its plainest case."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class VectorIndex(ABC):
    """Unit vectors under integer keys; each engine stores and searches them."""

    def __init__(self, name: str, dimensions: int):
        self.name = name
        self.dimensions = dimensions

    @abstractmethod
    def build(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        """Hold exactly these vectors (replacing any held before)."""

    @abstractmethod
    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The `k` nearest keys and their cosine similarity, best first."""


class ExactIndex(VectorIndex):
    """Every vector compared: the right answer, in time linear in the count."""

    def build(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        self.keys = np.asarray(keys, dtype=np.uint64)
        self.vectors = np.asarray(vectors, dtype=np.float32).reshape(
            -1, self.dimensions
        )

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        if not len(self.keys):
            return []
        scores = self.vectors @ np.asarray(vector, dtype=np.float32)
        order = np.lexsort((self.keys, -scores))[:k]
        return [(int(self.keys[i]), float(scores[i])) for i in order]
