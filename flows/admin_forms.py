"""The flow change form of the admin: the webhook secret write-only, and
secrets typed into the flow (docs/credentials.md) shown masked and kept
unless typed over."""

from __future__ import annotations

from django import forms

from flows.credentials.literals import LiteralSecrets
from flows.models import Flow

# The flow's fields where a secret may be typed (literals.FLOW_FIELDS and the
# nodes): masked on the change form, the list and read-only views.
MASKED_FIELDS = ("name", "description", "input_schema", "nodes")


def literals_of(flow) -> LiteralSecrets:
    """The matcher of `flow`'s workspace, made once per flow object: the form,
    the page's title and the read-only fields share it (each would cost a
    query and a decryption per credential)."""
    if getattr(flow, "_literals", None) is None:
        flow._literals = LiteralSecrets.of_workspace(flow.workspace_id)
    return flow._literals


class FlowAdminForm(forms.ModelForm):
    """The webhook secret is write-only here, as in the builder (shown once).

    The field starts empty: left empty it keeps the stored secret, typed into
    it replaces the secret, and `remove_webhook_secret` clears it.
    """

    webhook_secret = forms.CharField(
        required=False,
        max_length=200,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        label="New webhook secret",
    )
    remove_webhook_secret = forms.BooleanField(
        required=False, label="Remove the webhook secret"
    )

    class Meta:
        model = Flow
        fields = [
            "created_by",
            "name",
            "description",
            "input_schema",
            "nodes",
            "edges",
            "webhook_enabled",
            "webhook_secret",
        ]

    # Set by FlowAdmin.get_form for staff who are not superusers: a flow they
    # add is theirs, checked (credentials included) as theirs.
    author = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.author is not None and self.instance._state.adding:
            self.instance.created_by = self.author
        self.literals = None
        if not self.instance._state.adding:
            # Secrets typed into the flow show masked, as in an export; each
            # `clean_<field>` puts back what was left as shown.
            self.literals = literals_of(self.instance)
            for name in MASKED_FIELDS:
                if name in self.fields:
                    stored = getattr(self.instance, name)
                    self.initial[name] = self.literals.scrub(stored)[0]
        self.initial["webhook_secret"] = ""
        is_set = bool(self.instance.pk and self.instance.webhook_secret)
        self.fields["webhook_secret"].help_text = (
            "A signing secret is set; it is never shown again. Type a new one to "
            "replace it, or leave this empty to keep it."
            if is_set
            else "No signing secret: the webhook accepts unsigned requests."
        )

    def kept(self, name: str):
        value = self.cleaned_data.get(name)
        if self.literals is None:
            return value
        return self.literals.keep(value, getattr(self.instance, name))

    def clean_name(self):
        return self.kept("name")

    def clean_description(self):
        return self.kept("description")

    def clean_input_schema(self):
        return self.kept("input_schema")

    def clean_nodes(self):
        return self.kept("nodes")

    def clean_webhook_secret(self):
        typed = self.cleaned_data.get("webhook_secret", "")
        if typed:
            return typed
        return (
            Flow.objects.filter(pk=self.instance.pk)
            .values_list("webhook_secret", flat=True)
            .first()
            or ""
        )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("remove_webhook_secret"):
            cleaned["webhook_secret"] = ""
        return cleaned
