"""`manage.py flows export-dir DIR --workspace W` and `flows import-dir DIR
--workspace W [--dry-run] [--prune]`: a workspace's flows as a directory of
files, and back (docs/git.md). W is the workspace's slug or id."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounts.audit.actor import Actor
from accounts.workspaces.models import Workspace
from flows.git.files import MANIFEST, export_workspace
from flows.git.sync import BadFile, MissingCredentials, apply_sync, plan_sync


def find_workspace(wanted: str) -> Workspace:
    """The workspace by slug or id; CommandError when there is none."""
    try:
        workspace = Workspace.objects.filter(pk=uuid.UUID(wanted)).first()
    except ValueError:
        workspace = Workspace.objects.filter(slug=wanted).first()
    if workspace is None:
        raise CommandError(f"No workspace has the slug or id {wanted!r}.")
    return workspace


def read_directory(directory: Path) -> dict:
    """`{file name: parsed JSON}` of the directory's `*.json` files."""
    if not directory.is_dir():
        raise CommandError(f"{directory} is not a directory.")
    files = {}
    for path in sorted(directory.glob("*.json")):
        try:
            files[path.name] = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as error:
            raise CommandError(f"{path.name}: not JSON ({error}).") from None
    return files


class Command(BaseCommand):
    help = "Export a workspace's flows to a directory of files, or import one."

    def add_arguments(self, parser):
        verbs = parser.add_subparsers(dest="verb", required=True)
        export = verbs.add_parser("export-dir", help="Write one file per flow.")
        export.add_argument("directory", type=Path)
        export.add_argument("--workspace", required=True)
        load = verbs.add_parser("import-dir", help="Apply a directory of flows.")
        load.add_argument("directory", type=Path)
        load.add_argument("--workspace", required=True)
        load.add_argument("--dry-run", action="store_true")
        load.add_argument("--prune", action="store_true")

    def handle(self, *args, verb, directory, workspace, **options):
        workspace = find_workspace(workspace)
        if verb == "export-dir":
            self.export_dir(directory, workspace)
        else:
            self.import_dir(directory, workspace, options["dry_run"], options["prune"])

    def export_dir(self, directory: Path, workspace) -> None:
        """Write the files and remove the directory's flow files of flows
        that are gone, so the directory mirrors the workspace."""
        directory.mkdir(parents=True, exist_ok=True)
        texts = export_workspace(workspace)
        for stale in directory.glob("*.json"):
            if stale.name not in texts:
                stale.unlink()
        for name, text in texts.items():
            (directory / name).write_text(text, encoding="utf-8")
        flows = len(texts) - 1
        self.stdout.write(f"Wrote {flows} flow file(s) and {MANIFEST} to {directory}.")

    def import_dir(self, directory: Path, workspace, dry_run: bool, prune: bool):
        files = read_directory(directory)
        try:
            plan = plan_sync(workspace, files, prune=prune)
        except BadFile as error:
            raise CommandError(str(error)) from None
        except MissingCredentials as error:
            lines = [str(error)] + [
                f"  {ref['name']} ({ref['kind']}) used by {', '.join(ref['files'])}"
                for ref in error.missing
            ]
            raise CommandError("\n".join(lines)) from None
        for step in plan.steps:
            self.stdout.write(f"{step.action:9} {step.key or step.name}")
            if step.diff:
                self.stdout.write(step.diff)
        counts = ", ".join(f"{n} {a}" for a, n in plan.counts().items())
        if dry_run:
            self.stdout.write(f"Dry run, nothing changed: {counts}.")
            return
        apply_sync(plan, Actor.system("manage.py flows import-dir"))
        self.stdout.write(f"Applied: {counts}.")
