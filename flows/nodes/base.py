"""What every node kind declares: its type name, its handles and its `data` checks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldError:
    """One problem in a node's `data`; `field` is a dotted path such as `data.code`."""

    field: str
    message: str


class NodeKind:
    """Base of the node kinds. Subclasses set the class attributes and may check `data`.

    `output_handles` lists the source handles an edge may leave from; `(None,)`
    means the node has one unnamed output.
    """

    type: str = ""
    label: str = ""
    description: str = ""
    is_trigger: bool = False
    output_handles: tuple[str | None, ...] = (None,)

    def validate_data(self, data: dict) -> list[FieldError]:
        """Problems in this node's `data`; an empty list when it is valid."""
        return []
