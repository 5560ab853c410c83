"""Knowledge search, quality and speed (issue 39, item 4). Not part of the suite.

`make bench-knowledge` (or `/work/venv/bin/python bench/knowledge.py`):

1. Quality: a fixed corpus of `CHUNKS` passages (default 2,400), generated
   from a seeded random source so every run sees the same text. Each passage
   states one fact about one product (its name is two words of a small
   vocabulary and a number, so many passages share words) among filler
   sentences drawn from a shared pool; each product has one question whose
   known answer is its passage. The passages and questions are embedded with
   the offline `hash` embedder, and recall@5 (the answer among the first five)
   is measured for exact search (numpy, every vector compared), the embedded
   index (usearch HNSW, as `KNOWLEDGE_INDEX=embedded` builds it) and Qdrant's
   local mode; with how often the embedded top five equal exact search's.
2. Speed: `LARGE` passages (default 100,000) of the same generator, embedded
   and put in the embedded index; `QUERIES` searches (default 1,000) timed one
   at a time, each the question's embedding plus the index search (what
   `knowledge.search.search` does before reading the five rows by key), with
   p50/p95/p99, against exact search for comparison, and how often the two
   agree on 200 of the questions; and the machine's load. Small bases are
   searched exhaustively by the embedded index (knowledge/vectors/embedded.py,
   `EXACT_BELOW`), so the quality part also forces the HNSW graph on the
   2,400 passages to show what the graph alone finds.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WEIR_TESTING", "1")

import django  # noqa: E402

django.setup()

from knowledge.embedders import HASH_DIMENSIONS, embed  # noqa: E402
from knowledge.vectors import new_index  # noqa: E402

CHUNKS = int(os.environ.get("CHUNKS", "2400"))
LARGE = int(os.environ.get("LARGE", "100000"))
QUERIES = int(os.environ.get("QUERIES", "1000"))
K = 5

ADJECTIVES = [
    "amber",
    "azure",
    "brisk",
    "calm",
    "cedar",
    "coral",
    "dusky",
    "early",
    "fern",
    "gilded",
    "granite",
    "hazel",
    "ivory",
    "jade",
    "keen",
    "lunar",
    "maple",
    "misty",
    "noble",
    "ochre",
    "olive",
    "pale",
    "quiet",
    "rapid",
    "rustic",
    "silver",
    "slate",
    "solar",
    "sunny",
    "tidal",
    "umber",
    "velvet",
    "vivid",
    "warm",
    "wild",
    "woven",
]
NOUNS = [
    "anchor",
    "badger",
    "beacon",
    "bridge",
    "canyon",
    "comet",
    "delta",
    "ember",
    "falcon",
    "forge",
    "garden",
    "glacier",
    "harbor",
    "heron",
    "island",
    "lantern",
    "meadow",
    "mesa",
    "orchard",
    "otter",
    "pebble",
    "pine",
    "prairie",
    "quarry",
    "raven",
    "reef",
    "ridge",
    "river",
    "summit",
    "thicket",
    "tundra",
    "valley",
    "willow",
]
CITIES = [
    "Lisbon",
    "Oslo",
    "Quito",
    "Accra",
    "Hanoi",
    "Lima",
    "Perth",
    "Riga",
    "Cusco",
    "Split",
    "Turku",
    "Bergen",
    "Porto",
    "Malmo",
    "Ghent",
    "Leeds",
    "Brno",
    "Graz",
    "Lyon",
    "Bari",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
FILLER = [
    "Orders placed before noon leave the warehouse the same day.",
    "Every parcel is tracked from the dock to the customer's door.",
    "Returns are accepted within thirty days of delivery.",
    "Support answers questions about shipping by e-mail.",
    "Packaging is recycled cardboard with paper tape.",
    "Prices include the local sales tax where it applies.",
    "A signature is needed for parcels above a certain value.",
    "Customs papers are printed and attached at the warehouse.",
    "The catalogue lists every product with its shipping city.",
    "Large items travel by freight and take longer to arrive.",
]


def corpus(count: int, seed: int) -> tuple[list[str], list[str]]:
    """`count` passages and, for each, the question only it answers."""
    rng = random.Random(seed)
    passages, questions = [], []
    for n in range(count):
        name = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {n}"
        city, day = rng.choice(CITIES), rng.choice(DAYS)
        fact = f"The {name} ships from {city} every {day}."
        body = rng.sample(FILLER, 4)
        body.insert(rng.randrange(5), fact)
        passages.append(" ".join(body))
        questions.append(f"Where and when does the {name} ship from?")
    return passages, questions


def recall(index, queries: np.ndarray, answers: np.ndarray) -> tuple[float, list]:
    tops = [[key for key, _ in index.search(query, K)] for query in queries]
    hits = sum(int(answer) in top for answer, top in zip(answers, tops, strict=True))
    return hits / len(answers), tops


def quality() -> list[str]:
    passages, questions = corpus(CHUNKS, seed=39)
    vectors, asked = embed("hash", passages), embed("hash", questions)
    keys = np.arange(1, CHUNKS + 1, dtype=np.uint64)
    lines = []
    found = {}
    for engine in ("exact", "embedded", "qdrant"):
        index = new_index("bench_quality", HASH_DIMENSIONS, engine=engine)
        index.build(keys, vectors)
        found[engine] = recall(index, asked, keys)
        lines.append(f"| recall@5, {engine} | {found[engine][0]:.4f} |")
    same = sum(
        set(a) == set(b)
        for a, b in zip(found["exact"][1], found["embedded"][1], strict=True)
    )
    lines.append(f"| embedded top 5 = exact top 5 | {same} / {CHUNKS} |")
    graph = new_index("bench_graph", HASH_DIMENSIONS, engine="embedded")
    graph.exact_below = 0  # the HNSW graph even for this small corpus
    graph.build(keys, vectors)
    graph_recall, graph_tops = recall(graph, asked, keys)
    same = sum(
        set(a) == set(b) for a, b in zip(found["exact"][1], graph_tops, strict=True)
    )
    lines.append(f"| recall@5, HNSW graph forced | {graph_recall:.4f} |")
    lines.append(f"| HNSW graph top 5 = exact top 5 | {same} / {CHUNKS} |")
    return lines


def timed(index, queries: list[str]) -> list[float]:
    times = []
    for question in queries:
        start = time.perf_counter()
        [vector] = embed("hash", [question])
        index.search(vector, K)
        times.append((time.perf_counter() - start) * 1000)
    return times


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100)[int(share * 100) - 1]


def speed() -> list[str]:
    passages, questions = corpus(LARGE, seed=7)
    start = time.perf_counter()
    vectors = embed("hash", passages)
    embedded_s = time.perf_counter() - start
    keys = np.arange(1, LARGE + 1, dtype=np.uint64)
    lines = [f"| embedding {LARGE:,} passages (hash) | {embedded_s:.1f} s |"]
    rng = random.Random(1)
    asked = [questions[rng.randrange(LARGE)] for _ in range(QUERIES)]
    tops: dict[str, list] = {}
    for engine in ("embedded", "exact"):
        index = new_index("bench_speed", HASH_DIMENSIONS, engine=engine)
        start = time.perf_counter()
        index.build(keys, vectors)
        built_s = time.perf_counter() - start
        timed(index, asked[:20])  # warm-up
        times = timed(index, asked)
        tops[engine] = [index.search(v, K) for v in embed("hash", asked[:200])]
        p50, p95, p99 = (percentile(times, share) for share in (0.5, 0.95, 0.99))
        lines.append(
            f"| {engine}, {LARGE:,} passages: build {built_s:.1f} s | "
            f"p50 {p50:.2f} ms, p95 {p95:.2f} ms, p99 {p99:.2f} ms |"
        )
    same = sum(
        [key for key, _ in a] == [key for key, _ in b]
        for a, b in zip(tops["embedded"], tops["exact"], strict=True)
    )
    compared = len(tops["exact"])
    lines.append(f"| {LARGE:,}: HNSW top 5 = exact top 5 | {same} / {compared} |")
    return lines


def main() -> None:
    print(f"uptime before: {subprocess.check_output(['uptime'], text=True).strip()}")
    print("| measure | result |\n|---|---|")
    for part in (quality, speed):
        for line in part():
            print(line, flush=True)
    print(f"uptime after: {subprocess.check_output(['uptime'], text=True).strip()}")


if __name__ == "__main__":
    main()
