"""The agent API behind `/api/agents` (DESIGN.md 4)."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from agents.models import Agent


class AgentToolSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    description = serializers.CharField()


class AgentSerializer(serializers.ModelSerializer):
    tools = AgentToolSerializer(many=True, read_only=True)

    class Meta:
        model = Agent
        fields = [
            "id",
            "name",
            "description",
            "model",
            "temperature",
            "tools",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class AgentViewSet(viewsets.ReadOnlyModelViewSet):
    """Active agents; every signed-in user may list them and chat."""

    serializer_class = AgentSerializer

    def get_queryset(self):
        return Agent.objects.active().prefetch_related("tools")
