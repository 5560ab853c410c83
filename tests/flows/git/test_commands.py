"""`manage.py flows export-dir` and `import-dir` (docs/git.md): a workspace's
flows as files, promoted to another workspace through a directory."""

from __future__ import annotations

import difflib
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from flows.history.models import FlowVersion
from flows.models import Flow
from tests.factories import FlowFactory


def run(*args) -> str:
    out = StringIO()
    call_command("flows", *map(str, args), stdout=out)
    return out.getvalue()


def read(directory) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def test_an_export_is_one_file_per_flow_and_a_manifest(tmp_path, staging_flows):
    run("export-dir", tmp_path, "--workspace", "staging")

    files = read(tmp_path)
    assert sorted(files) == ["charge-customers.json", "say-hello.json", "weir.json"]
    manifest = json.loads(files["weir.json"])
    assert manifest == {
        "files": ["charge-customers.json", "say-hello.json"],
        "weir_version": 1,
        "workspace": "staging",
    }
    text = files["charge-customers.json"].decode()
    document = json.loads(text)
    assert document["key"] == "charge-customers"
    assert document["credentials"] == [{"name": "stripe", "kind": "bearer"}]
    assert "pins" not in document and "redacted" not in document
    assert "tok-stripe" not in text and str(staging_flows[0].pk) not in text
    # One line per node: the three nodes are three lines of the file.
    assert sum(line.startswith('    {"data"') for line in text.splitlines()) == 3


def test_export_then_import_elsewhere_then_export_gives_the_same_bytes(
    tmp_path, staging_flows, production
):
    run("export-dir", tmp_path / "a", "--workspace", "staging")
    run("import-dir", tmp_path / "a", "--workspace", str(production.pk))
    run("export-dir", tmp_path / "b", "--workspace", "production")

    first, second = read(tmp_path / "a"), read(tmp_path / "b")
    assert first.pop("weir.json") != second.pop("weir.json")  # names its workspace
    assert first == second
    calls = production.flows.get(key="charge-customers")
    credential = calls.nodes[1]["data"]["credential_id"]
    assert credential == str(production.credentials.get(name="stripe").pk)


def test_one_edited_node_is_one_hunk_and_a_new_version_from_git(
    tmp_path, staging_flows, production
):
    run("export-dir", tmp_path, "--workspace", "staging")
    run("import-dir", tmp_path, "--workspace", "production")
    path = tmp_path / "say-hello.json"
    before = path.read_text()
    after = before.replace("return {hello: 'world'}", "return {hello: 'there'}")
    path.write_text(after)

    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines()))
    assert sum(line.startswith("@@") for line in diff) == 1
    assert [line[0] for line in diff[3:] if line[0] in "+-"] == ["-", "+"]

    output = run("import-dir", tmp_path, "--workspace", "production")
    flow = production.flows.get(key="say-hello")
    assert flow.version == 2
    assert flow.nodes[1]["data"]["code"] == "return {hello: 'there'}"
    newest = FlowVersion.objects.get(flow=flow, number=2)
    assert newest.source == "git"
    assert "update    say-hello" in output
    assert "+    " in output and "there" in output


def test_importing_the_same_directory_twice_changes_nothing(
    tmp_path, staging_flows, production
):
    run("export-dir", tmp_path, "--workspace", "staging")
    run("import-dir", tmp_path, "--workspace", "production")
    versions = FlowVersion.objects.count()

    output = run("import-dir", tmp_path, "--workspace", "production")

    assert "Applied: 0 create, 0 update, 0 delete, 2 unchanged." in output
    assert FlowVersion.objects.count() == versions


def test_a_renamed_flow_keeps_its_file(tmp_path, staging_flows):
    run("export-dir", tmp_path, "--workspace", "staging")
    flow = staging_flows[1]
    Flow.objects.filter(pk=flow.pk).update(name="Greet")

    run("export-dir", tmp_path, "--workspace", "staging")

    assert json.loads((tmp_path / "say-hello.json").read_text())["name"] == "Greet"


def test_prune_deletes_the_flows_the_directory_does_not_name(
    tmp_path, staging_flows, production, ops
):
    run("export-dir", tmp_path, "--workspace", "staging")
    run("import-dir", tmp_path, "--workspace", "production")
    (tmp_path / "say-hello.json").unlink()

    kept = run("import-dir", tmp_path, "--workspace", "production")
    assert production.flows.count() == 2 and "0 delete" in kept

    output = run("import-dir", tmp_path, "--workspace", "production", "--prune")
    assert "delete    say-hello" in output
    assert list(production.flows.values_list("key", flat=True)) == ["charge-customers"]


def test_a_dry_run_prints_the_plan_and_changes_nothing(
    tmp_path, staging_flows, production
):
    run("export-dir", tmp_path, "--workspace", "staging")
    run("import-dir", tmp_path, "--workspace", "production")
    path = tmp_path / "say-hello.json"
    path.write_text(path.read_text().replace("Say hello", "Say hi"))
    (tmp_path / "charge-customers.json").unlink()
    versions = FlowVersion.objects.count()

    output = run(
        "import-dir", tmp_path, "--workspace", "production", "--dry-run", "--prune"
    )

    assert "update    say-hello" in output
    assert '-  "name": "Say hello",' in output and '+  "name": "Say hi",' in output
    assert "delete    charge-customers" in output
    assert "Dry run, nothing changed: 0 create, 1 update, 1 delete" in output
    assert FlowVersion.objects.count() == versions
    assert sorted(production.flows.values_list("name", flat=True)) == [
        "Charge customers",
        "Say hello",
    ]


def test_missing_credentials_are_all_named_and_nothing_is_applied(
    tmp_path, staging_flows, production
):
    run("export-dir", tmp_path, "--workspace", "staging")
    production.credentials.all().delete()
    path = tmp_path / "say-hello.json"
    document = json.loads(path.read_text())
    document["credentials"] = [{"name": "slack", "kind": "bearer"}]
    path.write_text(json.dumps(document))

    with pytest.raises(CommandError) as error:
        run("import-dir", tmp_path, "--workspace", "production")

    message = str(error.value)
    assert "stripe (bearer) used by charge-customers.json" in message
    assert "slack (bearer) used by say-hello.json" in message
    assert not production.flows.exists()


def test_a_bad_file_is_named(tmp_path, staging_flows, production):
    run("export-dir", tmp_path, "--workspace", "staging")
    (tmp_path / "say-hello.json").write_text('{"weir_version": 1, "key": "other"}')

    with pytest.raises(CommandError, match="say-hello.json: The file of key"):
        run("import-dir", tmp_path, "--workspace", "production")
    assert not production.flows.exists()


def test_an_unknown_workspace_is_an_error(tmp_path, db):
    with pytest.raises(CommandError, match="No workspace has the slug or id 'nope'"):
        run("export-dir", tmp_path, "--workspace", "nope")


def test_a_flow_moved_to_a_workspace_with_its_key_taken_leaves_the_key_behind(
    tmp_path, staging_flows, production, ops
):
    run("export-dir", tmp_path, "--workspace", "staging")
    run("import-dir", tmp_path, "--workspace", "production")
    client = APIClient()
    client.force_login(ops)

    response = client.post(
        f"/api/flows/{staging_flows[1].pk}/move",
        {"workspace": str(production.pk)},
        format="json",
    )

    assert response.status_code == 200
    moved = Flow.objects.get(pk=staging_flows[1].pk)
    assert moved.workspace_id == production.pk and moved.key == ""


def test_a_first_import_adopts_a_hand_made_flow_of_the_same_name(
    tmp_path, staging_flows, production, ops
):
    run("export-dir", tmp_path, "--workspace", "staging")
    by_hand = FlowFactory(created_by=ops, workspace=production, name="Say hello")

    output = run("import-dir", tmp_path, "--workspace", "production")

    assert "update    say-hello" in output
    assert production.flows.count() == 2
    by_hand.refresh_from_db()
    assert by_hand.key == "say-hello" and by_hand.version == 2
