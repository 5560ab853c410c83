"""Every app a flow may use: the vendored documents, the plugins' and the
uploaded ones, by slug. A vendored slug wins over a plugin's, which wins over
an uploaded one (so an upload cannot change what saved flows call)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.templatetags.static import static

from flows.app_actions import documents
from flows.app_actions.app import App
from flows.app_actions.models import UploadedApp
from flows.app_actions.plugins import plugin_documents

VENDORED = Path(__file__).resolve().parent / "documents"


@cache
def vendored() -> dict[str, App]:
    """The documents shipped in flows/app_actions/documents/ (read once)."""
    return {
        path.stem: App(
            path.stem,
            documents.load(path.read_bytes()),
            "vendored",
            icon=static(f"img/apps/{path.stem}.svg"),
        )
        for path in sorted(VENDORED.glob("*.yaml"))
    }


@cache
def plugins() -> dict[str, App]:
    """The `weir.apps` entry points' documents (read once per process)."""
    return {
        slug: App(slug, document, "plugin")
        for slug, document in plugin_documents(taken=vendored()).items()
    }


def uploaded_app(row: UploadedApp) -> App:
    return App(row.slug, row.document, "uploaded", icon=row.icon or None)


def all_apps() -> list[App]:
    """Every app, by name. Costs one query (the uploaded apps)."""
    found = {row.slug: uploaded_app(row) for row in UploadedApp.objects.all()}
    found.update(plugins())
    found.update(vendored())
    return sorted(found.values(), key=lambda app: app.name.lower())


def get_app(slug) -> App | None:
    """The app called `slug`; None for any other value. May cost one query."""
    if not isinstance(slug, str):
        return None
    app = vendored().get(slug) or plugins().get(slug)
    if app is None:
        row = UploadedApp.objects.filter(slug=slug).first()
        app = uploaded_app(row) if row else None
    return app


def taken(slug: str) -> bool:
    return slug in vendored() or slug in plugins()


def palette_apps() -> list[dict]:
    """What the builder shows of each app: its palette group (icon, name, its
    actions by summary) and the credential kinds its inspector offers. The
    operations' forms come from GET /api/apps/:slug/operations. One query."""
    return [
        {
            "slug": app.slug,
            "name": app.name,
            "icon": app.icon,
            "kinds": list(app.credential_kinds),
            "operations": [
                {
                    "id": op.id,
                    "summary": op.summary,
                    "method": op.method,
                    "path": op.path,
                    # Its own security may take other kinds than the app's.
                    "kinds": list(app.auth_of(op)[0]),
                }
                for op in app.operations.values()
            ],
        }
        for app in all_apps()
    ]


def preselect_credentials(apps: list[dict], credentials) -> None:
    """Give each of `apps` (palette_apps()) the credential a new action of it
    starts with, as `credential_id`: the one among `credentials` ((id, name,
    kind) rows of the flow's workspace) of a kind the app takes whose name
    holds the app's slug or name ("github", "slack-bot"); none when no
    credential or several fit, so a guess never picks between two tokens."""
    for app in apps:
        words = {app["slug"].lower(), app["name"].lower()}
        fitting = [
            str(pk)
            for pk, name, kind in credentials
            if kind in app["kinds"] and any(word in name.lower() for word in words)
        ]
        app["credential_id"] = fitting[0] if len(fitting) == 1 else ""
