"""Helpers with no flows model in them (outbound HTTP, what may be stored,
metrics, pretty printing, run statistics), the bottom layer of flows."""
