"""`GET /api/audit`: the audit log, for staff, and `GET /api/workspaces/:id/
audit`: one workspace's, for its admins (accounts/audit; docs/history.md).

Filters: `action` (`flow.updated`, or a family without a dot: `flow`), `actor`
(a username, as recorded), `since` and `until` (as the run filters read them).
Newest first, by cursor (`next`), 50 to a page.
"""

from __future__ import annotations

from django import forms
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.permissions import IsAdminUser
from rest_framework.settings import api_settings

from accounts import rights
from accounts.audit.models import AuditEvent
from accounts.workspaces.permissions import InWorkspace
from core.http.filters import TimeFilterForm, parse_filters
from core.http.pagination import NewestFirstCursor

FILTERS = [
    OpenApiParameter(
        "action", str, description="An action (flow.updated) or a family (flow)."
    ),
    OpenApiParameter("actor", str, description="The username that acted."),
    OpenApiParameter("since", str, description="From this date or time (inclusive)."),
    OpenApiParameter("until", str, description="Before this date or time."),
]


class AuditFilterForm(TimeFilterForm):
    action = forms.RegexField(
        regex=r"^[a-z_]+(\.[a-z_]+)?$",
        required=False,
        max_length=64,
        error_messages={"invalid": "An action looks like flow.updated, or flow."},
    )
    actor = forms.CharField(required=False, max_length=150)


def apply_audit_filters(events, filters: dict):
    if "action" in filters:
        action = filters["action"]
        if "." in action:
            events = events.filter(action=action)
        else:
            events = events.filter(action__startswith=f"{action}.")
    if "actor" in filters:
        events = events.filter(actor_label=filters["actor"])
    if "since" in filters:
        events = events.filter(at__gte=filters["since"])
    if "until" in filters:
        events = events.filter(at__lt=filters["until"])
    return events


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_label")
    token = serializers.CharField(source="token_label")

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "at",
            "workspace",
            "action",
            "actor",
            "token",
            "target_type",
            "target_id",
            "target_label",
            "changes",
            "address",
            "user_agent",
            "request_id",
        ]


@extend_schema(parameters=FILTERS)
class AuditViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Every event, for staff; 403 for anyone else. A staff member's API token
    reads its own workspace's events only (a token reaches one workspace,
    everywhere): no other workspace's, and no sign-ins, which have none."""

    serializer_class = AuditEventSerializer
    pagination_class = NewestFirstCursor
    # The defaults first: a token still needs the audit:read scope.
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, IsAdminUser]
    rights = {"list": rights.AUDIT_READ}

    def get_queryset(self):
        filters = parse_filters(AuditFilterForm(self.request.query_params))
        events = AuditEvent.objects.all()
        if self.request.auth is not None:  # a token, not a session
            only = getattr(self.request.user, "token_workspace_id", None)
            events = events.filter(workspace_id=only) if only else events.none()
        return apply_audit_filters(events, filters)


@extend_schema(parameters=FILTERS)
class WorkspaceAuditViewSet(
    InWorkspace, mixins.ListModelMixin, viewsets.GenericViewSet
):
    """One workspace's events, for its admins (or a token with `audit:read`
    whose maker is one): 404 for a non-member, 403 for any other member."""

    serializer_class = AuditEventSerializer
    pagination_class = NewestFirstCursor
    rights = {"list": rights.AUDIT_READ}

    def get_queryset(self):
        events = AuditEvent.objects.filter(workspace=self.workspace())  # 404, 403
        filters = parse_filters(AuditFilterForm(self.request.query_params))
        return apply_audit_filters(events, filters)
