from django.urls import path

from flows import views

app_name = "flows"

urlpatterns = [
    path("", views.flow_list, name="list"),
    path("flows/<uuid:flow_id>/", views.builder, name="builder"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("credentials/", views.credentials, name="credentials"),
]
