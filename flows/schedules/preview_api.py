"""`POST /api/schedules/preview`: a cron expression and zone checked, with the
next five fire times and a plain sentence, for the builder's schedule form."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import rights
from core.cron import cron_problem, describe, next_ticks, zone_of
from core.http.errors import ValidationFailed

PREVIEW = inline_serializer(
    "SchedulePreview",
    {
        "next": serializers.ListField(child=serializers.DateTimeField()),
        "description": serializers.CharField(),
        "timezone": serializers.CharField(),
    },
)
REQUEST = inline_serializer(
    "SchedulePreviewRequest",
    {
        "cron": serializers.CharField(),
        "timezone": serializers.CharField(required=False),
    },
)


class SchedulePreviewView(APIView):
    rights = {"post": rights.FLOWS_EDIT}

    @extend_schema(request=REQUEST, responses={200: PREVIEW}, tags=["flows"])
    def post(self, request):
        """The next 5 fire times (in the zone) and a sentence, or field errors."""
        body = request.data if isinstance(request.data, dict) else {}
        cron, zone = body.get("cron"), body.get("timezone") or settings.TIME_ZONE
        problems = {}
        problem = cron_problem(cron)
        if problem:
            problems["cron"] = [problem]
        if zone_of(zone) is None:
            problems["timezone"] = [
                f"{str(zone)[:64]!r} is not a time zone: give an IANA name "
                "like Europe/Paris or UTC."
            ]
        if problems:
            first = next(iter(problems.values()))[0]
            raise ValidationFailed(first, details=problems)
        return Response(
            {
                "next": [tick.isoformat() for tick in next_ticks(cron, zone)],
                "description": describe(cron, zone),
                "timezone": zone,
            }
        )
