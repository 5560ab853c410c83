"""Text to vectors: an offline hashing embedder, and the providers' embedding APIs.

`hash` needs nothing and gives the same vector for the same text everywhere (the
demo and the tests use it); `openai:<model>` calls the OpenAI-compatible
`/embeddings` of OPENAI_BASE_URL, `ollama:<model>` Ollama's own OpenAI-compatible
one at OLLAMA_BASE_URL. Every vector comes back L2-normalised, so the inner
product is the cosine similarity whichever index searches them.
"""

from __future__ import annotations

import math
import re
import zlib

import numpy as np
from django.conf import settings

HASH_DIMENSIONS = 256
# Texts per embeddings request: providers cap a request's inputs.
BATCH = 64
# Providers called with the server's own key (the operator's bill): only staff
# may give a base such an embedder (knowledge/api.py).
SERVER_KEY = frozenset({"openai"})
WORD = re.compile(r"\w+", re.UNICODE)


class EmbeddingFailed(Exception):
    """The provider refused or could not be reached; the message says why."""


def parse(name: str) -> tuple[str, str]:
    """`openai:text-embedding-3-small` -> ("openai", "text-embedding-3-small")."""
    provider, _, model = name.partition(":")
    if provider == "hash" and not model:
        return provider, ""
    if provider in ("openai", "ollama") and model:
        return provider, model
    raise ValueError(
        f"An embedder is `hash`, `openai:<model>` or `ollama:<model>`, not {name!r}."
    )


def embed(name: str, texts: list[str]) -> np.ndarray:
    """The vectors of `texts` (float32, one row each, unit length)."""
    provider, model = parse(name)
    if not texts:
        return np.zeros((0, HASH_DIMENSIONS), dtype=np.float32)
    if provider == "hash":
        return np.stack([hash_vector(text) for text in texts])
    rows: list[list[float]] = []
    for start in range(0, len(texts), BATCH):
        rows += _remote(provider, model, texts[start : start + BATCH])
    return normalised(np.asarray(rows, dtype=np.float32))


def hash_vector(text: str) -> np.ndarray:
    """Words and word pairs hashed into HASH_DIMENSIONS signed buckets, counts
    damped by a logarithm: texts sharing rare words point the same way."""
    vector = np.zeros(HASH_DIMENSIONS, dtype=np.float32)
    words = [word.lower() for word in WORD.findall(text)]
    counts: dict[str, int] = {}
    for feature in words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]:
        counts[feature] = counts.get(feature, 0) + 1
    for feature, count in counts.items():
        digest = zlib.crc32(feature.encode())
        sign = 1.0 if digest & 0x80000000 else -1.0
        vector[digest % HASH_DIMENSIONS] += sign * (1.0 + math.log(count))
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def normalised(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (rows / norms).astype(np.float32)


def _remote(provider: str, model: str, texts: list[str]) -> list[list[float]]:
    import openai

    if provider == "openai":
        base_url = settings.OPENAI_BASE_URL or None
        api_key = settings.OPENAI_API_KEY
    else:
        base_url = settings.OLLAMA_BASE_URL.rstrip("/") + "/v1"
        api_key = "ollama"  # Ollama reads no key; the client needs one
    client = openai.OpenAI(
        api_key=api_key or "missing",
        base_url=base_url,
        max_retries=settings.AGENT_MAX_RETRIES,
        timeout=settings.AGENT_TIMEOUT_SECONDS,
    )
    try:
        answer = client.embeddings.create(model=model, input=texts)
    except openai.OpenAIError as error:
        raise EmbeddingFailed(
            f"The {provider} embeddings call failed: {error}"
        ) from None
    rows = [item.embedding for item in sorted(answer.data, key=lambda i: i.index)]
    if len(rows) != len(texts):
        raise EmbeddingFailed(f"The {provider} embeddings answer lacks vectors.")
    return rows
