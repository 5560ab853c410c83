"""The Knowledge pages."""

from django.urls import path

from knowledge import views

app_name = "knowledge"

urlpatterns = [
    path("knowledge/", views.base_list, name="list"),
    path("knowledge/<uuid:base_id>/", views.base_page, name="base"),
]
