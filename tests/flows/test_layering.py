"""Import arrows run one way: flows is below agents, webhooks and config.accounts,
so no module of flows imports them (they plug in through registries instead)."""

from __future__ import annotations

import ast
from pathlib import Path

import flows

UPPER_LAYERS = ("agents", "webhooks", "config.accounts")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for statement in ast.walk(tree):
        if isinstance(statement, ast.Import):
            names |= {alias.name for alias in statement.names}
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0:
            names.add(statement.module or "")
    return names


def test_no_module_of_flows_imports_agents_webhooks_or_accounts():
    root = Path(flows.__file__).parent
    offenders = {
        f"{path.relative_to(root.parent)}: {name}"
        for path in root.rglob("*.py")
        for name in imported_modules(path)
        if any(name == layer or name.startswith(f"{layer}.") for layer in UPPER_LAYERS)
    }

    assert offenders == set()


def test_the_check_sees_an_import_of_agents(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("def f():\n    from agents.chat import send_message\n")

    assert "agents.chat" in imported_modules(module)
