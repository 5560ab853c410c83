from django.urls import path
from django.views.generic import RedirectView

from flows import views
from flows.credentials.oauth2 import views as oauth2_views

app_name = "flows"

urlpatterns = [
    path("", views.flow_list, name="list"),
    # /flows/ is where people guess the list is (the builder lives below it).
    path("flows/", RedirectView.as_view(pattern_name="flows:list")),
    path("flows/<uuid:flow_id>/", views.builder, name="builder"),
    path("runs/", views.runs, name="runs"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("credentials/", views.credentials, name="credentials"),
    path(
        "oauth/connect/<uuid:credential_id>",
        oauth2_views.connect,
        name="oauth_connect",
    ),
    path("oauth/callback", oauth2_views.callback, name="oauth_callback"),
]
