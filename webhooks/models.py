"""Webhook deliveries are stored as FlowRuns (trigger `webhook`) in the flows app."""
