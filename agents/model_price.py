"""An admin's price for a model, which wins over the maintained tables."""

from __future__ import annotations

from django.db import models

from agents.model_strings import validate_model_string


class ModelPrice(models.Model):
    """An admin's price for one model, in USD per million tokens; it wins over
    the genai-prices tables (a model they lack, a negotiated rate)."""

    model = models.CharField(
        max_length=200,
        unique=True,
        validators=[validate_model_string],
        help_text="provider:model-name, exactly as agents name it.",
    )
    input_per_mtok = models.DecimalField(max_digits=12, decimal_places=6)
    output_per_mtok = models.DecimalField(max_digits=12, decimal_places=6)
    cached_input_per_mtok = models.DecimalField(
        max_digits=12,
        decimal_places=6,
        null=True,
        blank=True,
        help_text="Empty: cached input tokens cost as other input tokens.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model"]

    def __str__(self):
        return self.model
