"""The Django admin's page for uploaded apps (admins only), registered by
flows/admin.py: add one from a file or a URL, checked like the API's."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import models

from flows.app_actions import upload
from flows.app_actions.documents import DocumentProblem
from flows.app_actions.models import UploadedApp


class UploadedAppForm(forms.ModelForm):
    document_file = forms.FileField(required=False, label="OpenAPI document (file)")
    url = forms.URLField(required=False, label="or its URL", assume_scheme="https")

    class Meta:
        model = UploadedApp
        fields = ("slug", "icon")

    icon = forms.URLField(required=False, assume_scheme="https")

    def clean(self):
        cleaned = super().clean()
        file, url = cleaned.get("document_file"), cleaned.get("url")
        if not file and not url:
            raise forms.ValidationError("Give the document as a file or a URL.")
        try:
            raw = file.read() if file else upload.fetched(url)
            self.app = upload.checked_app(raw, slug=cleaned.get("slug"))
        except (DocumentProblem, upload.SlugTaken) as problem:
            raise forms.ValidationError(str(problem)) from None
        return cleaned


@admin.register(UploadedApp)
class UploadedAppAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "source_url", "created_at")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = ("source_url", "created_by", "created_at")

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = UploadedAppForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("document_file", "url", "slug", "icon")
        return ("slug", "icon", "source_url", "created_by", "created_at")

    def save_model(self, request, obj, form, change):
        if not change:
            slug, document = form.app
            obj.slug, obj.document = slug, document
            obj.source_url = form.cleaned_data.get("url") or ""
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def has_module_permission(self, request):
        return request.user.is_superuser

    has_view_permission = has_add_permission = has_change_permission = (
        lambda self, request, obj=None: request.user.is_superuser
    )
    has_delete_permission = has_change_permission
