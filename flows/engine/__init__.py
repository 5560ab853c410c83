"""The run engine: plain Python, no HTTP. Every caller runs flows through here."""

from __future__ import annotations

from flows.engine.start import run_flow

__all__ = ["run_flow"]
