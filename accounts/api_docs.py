"""The API's description: its OpenAPI schema (`/api/schema`, public, as every
client generator needs it before it has a token) and the Swagger UI page
(`/api/docs`, for people, behind sign-in)."""

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
