"""The page scripts' modules import each other without a circle.

A circle of ES modules loads, but one of them then runs before its imports
are defined, and it ties every module in it to the others: the builder once
had eight in one (history, inspector, live_run, pins_panel, run_view, save,
tabs, undo). Panels talk through context.js's `on`/`emit` instead."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

STATIC_JS = Path(settings.BASE_DIR) / "static" / "js"
# `import x from "./a.js"`, `import { a,\n b } from "../b.js"`, `import "./c.js"`,
# `export { x } from "./d.js"` and `import("./e.js")`: relative specifiers only.
IMPORT = re.compile(
    r"""(?:^|;)\s*(?:import|export)\s+(?:[^'"`;]*?\bfrom\s*)?['"](\.{1,2}/[^'"]+)['"]"""
    r"""|\bimport\(\s*['"](\.{1,2}/[^'"]+)['"]\s*\)""",
    re.MULTILINE,
)


def import_graph(root: Path) -> dict[Path, set[Path]]:
    graph = {}
    for path in root.rglob("*.js"):
        if "vendor" in path.relative_to(root).parts:
            continue
        text = path.read_text()
        graph[path] = {
            (path.parent / (static or dynamic)).resolve()
            for static, dynamic in IMPORT.findall(text)
        }
    return graph


def find_cycle(graph: dict[Path, set[Path]]) -> list[Path] | None:
    """One circle of imports as the list of its modules, or None."""
    done: set[Path] = set()
    for start in sorted(graph):
        stack = [(start, iter(sorted(graph[start])))]
        on_path = [start]
        while stack:
            module, children = stack[-1]
            child = next(children, None)
            if child is None:
                done.add(module)
                stack.pop()
                on_path.pop()
            elif child in on_path:
                return on_path[on_path.index(child) :] + [child]
            elif child not in done and child in graph:
                stack.append((child, iter(sorted(graph[child]))))
                on_path.append(child)
    return None


def test_no_page_script_imports_itself_through_others():
    cycle = find_cycle(import_graph(STATIC_JS.resolve()))

    assert cycle is None, " → ".join(path.name for path in cycle)


def test_the_check_finds_a_circle_through_three_modules(tmp_path):
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\n')
    (tmp_path / "b.js").write_text('import {\n  c,\n} from "./sub/c.js";\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.js").write_text('const a = await import("../a.js");\n')
    (tmp_path / "d.js").write_text('import "./a.js";\n')

    cycle = find_cycle(import_graph(tmp_path.resolve()))

    assert [path.name for path in cycle] == ["a.js", "b.js", "c.js", "a.js"]


def test_modules_that_share_an_import_are_no_circle(tmp_path):
    (tmp_path / "dom.js").write_text("export const h = 1;\n")
    (tmp_path / "a.js").write_text('import { h } from "./dom.js";\n')
    (tmp_path / "b.js").write_text('import { h } from "./dom.js";\nimport "./a.js";\n')

    assert find_cycle(import_graph(tmp_path.resolve())) is None
