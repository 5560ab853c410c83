"""The run result every endpoint that runs a flow answers (documentation only)."""

from __future__ import annotations

from rest_framework import serializers

from flows.models import FlowRun


class RunResultSerializer(serializers.Serializer):
    """The run result of docs/api.md, section 3 (documentation only)."""

    success = serializers.BooleanField()
    run_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=FlowRun.Status.choices)
    results = serializers.DictField(
        allow_null=True,
        help_text="Each node's output by node id; null from a rerun or retry "
        "for a caller who may not read run data (`runs:read`).",
    )
    duration = serializers.FloatField(help_text="Milliseconds.")
    error = serializers.DictField(allow_null=True)
