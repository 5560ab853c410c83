"""Knowledge bases: a workspace's documents, as passages agents and flows search
(docs/knowledge.md)."""
