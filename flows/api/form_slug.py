"""One form page per address: a slug another flow holds is refused on save."""

from __future__ import annotations

from flows.models import Flow
from flows.nodes.form import form_slug


def check_form_slug(nodes, instance: Flow | None, errors) -> None:
    """Add a node error (GraphErrors.node) when another flow, of any
    workspace, already answers at this form's address. The unique column
    (Flow.form_slug) stays the guard against two saves at once."""
    slug = form_slug(nodes)
    if slug is None:
        return
    others = Flow.objects.filter(form_slug=slug)
    if instance is not None:
        others = others.exclude(pk=instance.pk)
    if others.exists():
        index = next(
            i
            for i, n in enumerate(nodes)
            if isinstance(n, dict) and n["type"] == "form"
        )
        errors.node(
            index,
            "data.slug",
            f"Another flow's form is already at /f/{slug}; choose another address.",
        )
