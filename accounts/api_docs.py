"""The API's description: its OpenAPI schema (`/api/schema`) and the Swagger UI
page (`/api/docs`).

Both need a signed-in caller (a session or any API token: drf-spectacular's
`SERVE_PERMISSIONS`, config/api_settings.py) and no right beyond it: the
schema names routes, not any workspace's data. The page sends people who are
signed out to sign in; the schema answers them 401."""

from django.contrib.auth.decorators import login_required
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import rights


class SchemaView(SpectacularAPIView):
    rights = {"get": rights.PUBLIC}


class DocsView(SpectacularSwaggerSplitView):
    rights = {"get": rights.PUBLIC}


schema = SchemaView.as_view()
# The split view serves Swagger UI's start-up script as a file (?script), so the
# page needs no inline script under the Content-Security-Policy. Signed out, it
# sends people to sign in (not a JSON 401).
docs = login_required(DocsView.as_view(url_name="schema"))
