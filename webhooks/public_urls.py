"""The public routes anyone with the address may call: a flow's webhook and
its form page. config/urls.py includes them first and with no prefix, so the
webhook (the hot path) is the first pattern tried: URLs resolve in order, and
each level of nested include made resolving its address take three times as
long (~25 µs of a webhook's CPU, bench/README.md, "Round 9"). The rest of the
path after the flow's id reaches the flow as `run.request.path`."""

from django.urls import path

from webhooks import form_page, views

urlpatterns = [
    path("api/webhooks/<str:flow_id>", views.receive, name="webhook"),
    path("api/webhooks/<str:flow_id>/<path:path>", views.receive, name="webhook-path"),
    # A flow's public form page (webhooks/form_page.py, docs/forms.md).
    path("f/<slug:slug>", form_page.form_page, name="form-page"),
]
