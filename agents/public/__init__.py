"""A published agent's public side: the hosted chat page `/c/<slug>`, the
embeddable widget, and the visitor's chat API (docs/agents.md, "Publishing an
agent"). Nothing here reads a Django session or a user: a visitor is a random
id in a signed token (`session`), and reaches one agent only."""
