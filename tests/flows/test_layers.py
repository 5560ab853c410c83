"""Inside flows, imports point down the layers that pyproject.toml's
`flows-layers` contract names (import-linter enforces it in `make lint`); this
test reads the same list, so a module importing a layer above its own fails
here too, lazy imports inside functions included. flows imports no app above
it (agents, webhooks, accounts) either: they plug in through registries."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import flows

ROOT = Path(flows.__file__).parent
UPPER_APPS = ("agents", "webhooks")


def flows_layers() -> list[set[str]]:
    """The contract's layers, top first, each a set of flows' children."""
    config = tomllib.loads((ROOT.parent / "pyproject.toml").read_text())
    (contract,) = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["id"] == "flows-layers"
    ]
    return [
        {name.strip() for name in layer.replace("|", ":").split(":")}
        for layer in contract["layers"]
    ]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for statement in ast.walk(tree):
        if isinstance(statement, ast.Import):
            names |= {alias.name for alias in statement.names}
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0:
            module = statement.module or ""
            # `from flows import engine` imports the child flows.engine.
            names |= {f"{module}.{alias.name}" for alias in statement.names}
            names.add(module)
    return names


def layer_of(module: str, layers: list[set[str]]) -> int | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "flows":
        return None
    return next((i for i, names in enumerate(layers) if parts[1] in names), None)


def upward_imports(root: Path, layers: list[set[str]]) -> set[str]:
    found = set()
    for path in root.rglob("*.py"):
        relative = path.relative_to(root.parent).with_suffix("")
        own = layer_of(".".join(relative.parts), layers)
        for name in imported_modules(path):
            target = layer_of(name, layers)
            if own is not None and target is not None and target < own:
                found.add(f"{relative}: {name}")
            if any(name == app or name.startswith(f"{app}.") for app in UPPER_APPS):
                found.add(f"{relative}: {name}")
    return found


def test_every_child_of_flows_is_in_one_layer():
    children = {
        path.stem if path.is_file() else path.name
        for path in ROOT.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path / "__init__.py").exists()
    }
    named = set().union(*flows_layers())

    assert children - named == {"apps", "migrations"}


def test_no_module_of_flows_imports_a_layer_above_its_own():
    assert upward_imports(ROOT, flows_layers()) == set()


def test_the_check_sees_a_lazy_import_pointing_up(tmp_path):
    package = tmp_path / "flows" / "graph"
    package.mkdir(parents=True)
    (package / "helper.py").write_text(
        "def f():\n    from flows.engine import run_flow\n"
    )

    assert upward_imports(tmp_path / "flows", flows_layers()) == {
        "flows/graph/helper: flows.engine",
        "flows/graph/helper: flows.engine.run_flow",
    }


def test_the_check_sees_an_import_of_agents(tmp_path):
    package = tmp_path / "flows" / "nodes"
    package.mkdir(parents=True)
    (package / "tool.py").write_text("from agents.chat import send_message\n")

    assert upward_imports(tmp_path / "flows", flows_layers()) == {
        "flows/nodes/tool: agents.chat",
        "flows/nodes/tool: agents.chat.send_message",
    }


def test_the_check_lets_every_layer_import_the_floors_below_flows(tmp_path):
    package = tmp_path / "flows" / "nodes"
    package.mkdir(parents=True)
    (package / "kind.py").write_text(
        "from accounts import rights\n"
        "from core.net import outbound\n"
        "import sandbox\n"
        "from webhooks import views\n"
    )

    assert upward_imports(tmp_path / "flows", flows_layers()) == {
        "flows/nodes/kind: webhooks",
        "flows/nodes/kind: webhooks.views",
    }
