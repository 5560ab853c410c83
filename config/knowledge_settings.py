"""Knowledge bases: what a document and a base may hold, and where vectors live
(docs/knowledge.md, "Limits")."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read(env) -> dict:
    return {
        # One uploaded file or fetched page; bigger is 413 `payload_too_large`.
        "KNOWLEDGE_MAX_DOCUMENT_BYTES": env.int(
            "KNOWLEDGE_MAX_DOCUMENT_BYTES", default=10 * 1024 * 1024
        ),
        # Passages one document may become; past it the document fails
        # `too_many_chunks` instead of crowding out the base.
        "KNOWLEDGE_MAX_DOCUMENT_CHUNKS": env.int(
            "KNOWLEDGE_MAX_DOCUMENT_CHUNKS", default=5_000
        ),
        "KNOWLEDGE_MAX_BASE_DOCUMENTS": env.int(
            "KNOWLEDGE_MAX_BASE_DOCUMENTS", default=1_000
        ),
        "KNOWLEDGE_MAX_BASE_CHUNKS": env.int(
            "KNOWLEDGE_MAX_BASE_CHUNKS", default=100_000
        ),
        # A passage is about this many characters, and repeats this many of the
        # one before it, so an answer cut at a boundary is still found whole.
        "KNOWLEDGE_CHUNK_CHARS": env.int("KNOWLEDGE_CHUNK_CHARS", default=1_000),
        "KNOWLEDGE_CHUNK_OVERLAP": env.int("KNOWLEDGE_CHUNK_OVERLAP", default=200),
        # `embedded` (usearch, in each process) or `qdrant` (KNOWLEDGE_QDRANT_URL,
        # or its local mode in KNOWLEDGE_QDRANT_PATH, or in memory when neither).
        "KNOWLEDGE_INDEX": env("KNOWLEDGE_INDEX", default="embedded"),
        "KNOWLEDGE_QDRANT_URL": env("KNOWLEDGE_QDRANT_URL", default=""),
        "KNOWLEDGE_QDRANT_PATH": env("KNOWLEDGE_QDRANT_PATH", default=""),
        # `embedded`: a base of up to this many passages is scanned exactly; a
        # larger one is searched through an HNSW graph that a worker builds and
        # stores in this folder (knowledge/graphs.py), shared by the processes
        # of one machine.
        "KNOWLEDGE_EXACT_BELOW": env.int("KNOWLEDGE_EXACT_BELOW", default=20_000),
        "KNOWLEDGE_GRAPH_DIR": env(
            "KNOWLEDGE_GRAPH_DIR", default=str(ROOT / "var" / "knowledge_graphs")
        ),
    }
