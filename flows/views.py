"""Server-rendered pages for flows. Data changes go through the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render

from flows.models import Flow


@login_required
def flow_list(request):
    flows = Flow.objects.for_user(request.user)
    return render(request, "flows/list.html", {"flows": flows})


@login_required
def builder(request, flow_id):
    flow = get_object_or_404(Flow.objects.for_user(request.user), pk=flow_id)
    return render(request, "flows/builder.html", {"flow": flow})
