"""The Knowledge pages: a workspace's bases, and one base's documents, their
indexing progress and a search box. Plain forms (CSRF-checked posts, errors
beside their field); a small script only refreshes the progress."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts.workspaces.access import role_of
from accounts.workspaces.current import current_membership, memberships_of
from accounts.workspaces.roles import FLOWS_EDIT, grants
from knowledge import documents, embedders
from knowledge.models import KnowledgeBase
from knowledge.search import search

MAX_NAME = 200


@login_required
@require_http_methods(["GET", "POST"])
def base_list(request):
    membership = current_membership(request, memberships_of(request))
    may_edit = membership is not None and grants(membership.role, FLOWS_EDIT)
    errors: dict[str, str] = {}
    if request.method == "POST":
        if not may_edit:
            return HttpResponseForbidden("Your role may not add knowledge bases.")
        name = request.POST.get("name", "").strip()[:MAX_NAME]
        workspace_id = membership.workspace_id
        if not name:
            errors["name"] = "Give the knowledge base a name."
        elif KnowledgeBase.objects.filter(
            workspace_id=workspace_id, name=name
        ).exists():
            errors["name"] = "This workspace already has a knowledge base of that name."
        else:
            base = KnowledgeBase.objects.create(
                workspace_id=workspace_id, name=name, created_by=request.user
            )
            return redirect("knowledge:base", base_id=base.pk)
    bases = (
        KnowledgeBase.objects.filter(
            workspace_id=getattr(membership, "workspace_id", None)
        )
        .annotate(document_count=Count("documents"))
        .order_by("name")
    )
    return render(
        request,
        "knowledge/list.html",
        {"bases": bases, "may_edit": may_edit, "errors": errors},
        status=400 if errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def base_page(request, base_id):
    """Another workspace's base is 404 here, as in the API."""
    base = get_object_or_404(KnowledgeBase.objects.for_user(request.user), pk=base_id)
    may_edit = grants(role_of(request.user, base.workspace_id), FLOWS_EDIT)
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        if not may_edit:
            return HttpResponseForbidden(
                "Your role may not change this knowledge base."
            )
        status, errors = _change(request, base)
        if not errors:
            return redirect("knowledge:base", base_id=base.pk)
    query = request.GET.get("q", "").strip()[:2000]
    results, search_error = [], ""
    if query:
        try:
            results = search(base, query, 5)
        except embedders.EmbeddingFailed as error:
            search_error = str(error)
    return render(
        request,
        "knowledge/base.html",
        {
            "base": base,
            "documents": base.documents.defer("content"),
            "may_edit": may_edit,
            "errors": errors,
            "query": query,
            "results": results,
            "search_error": search_error,
            "max_bytes": settings.KNOWLEDGE_MAX_DOCUMENT_BYTES,
        },
        status=status,
    )


def _change(request, base) -> tuple[int, dict[str, str]]:
    """Do the form's action: add a file or a URL, re-index or delete a document."""
    action = request.POST.get("action")
    try:
        if action == "add_file":
            documents.refuse_large_body(request)
            upload = request.FILES.get("file")
            if upload is None:
                raise documents.DocumentRefused("file", "Choose a file to add.")
            if upload.size > settings.KNOWLEDGE_MAX_DOCUMENT_BYTES:
                raise documents.DocumentRefused(
                    "file", documents.too_large_message(), too_large=True
                )
            documents.add_file(
                base, upload.name, upload.read(), upload.content_type or ""
            )
        elif action == "add_url":
            url = request.POST.get("url", "").strip()[:4000]
            documents.add_url(base, url)
        elif action in ("delete", "reindex"):
            document = get_object_or_404(
                base.documents.all(), pk=request.POST.get("document")
            )
            (documents.delete if action == "delete" else documents.reindex)(document)
    except documents.DocumentRefused as refused:
        return (413 if refused.too_large else 400), {refused.field: refused.message}
    return 200, {}
