"""What a completeness profile is: a list of evidence fields and a pure assessment.

A profile names the fields a reviewer needs to walk or rerun a finding for one kind of trace
(docs/audit.md, "Completeness profiles"). Assessing a trace gives one :class:`FieldStatus` per
field: ``present``, ``partial`` (some items carry it, or it is cut), ``missing``, or
``not_carried`` when the format has nowhere to put it (not the operator's fault).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from tracekit.judging.audit.model import FieldStatus
from tracekit.kernel.evidence import Status


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One evidence field of a profile."""

    name: str
    needed_to_rerun: bool
    """True when a colleague cannot rerun the finding without it (a gap is then a warning)."""
    what: str
    """One line for the docs and the table: what the field is."""

    def row(self, status: Status, where: str) -> FieldStatus:
        """This field's row in a completeness table."""
        return FieldStatus(self.name, status, where, self.needed_to_rerun)

    def count(self, have: int, total: int, where: str) -> FieldStatus:
        """``present`` when every one of ``total`` items has it (also when there are none),
        ``missing`` when none does, ``partial`` otherwise."""
        status: Status = "present" if have >= total else "missing" if have == 0 else "partial"
        return FieldStatus(self.name, status, where, self.needed_to_rerun)


class Profile(Protocol):
    """A completeness profile for one trace format."""

    format: str
    """The format it applies to (``agentguard``, ``harness``, or an importer's name)."""
    fields: tuple[FieldSpec, ...]
    """Every field, in table order."""

    def assess(self, subject: Any) -> tuple[FieldStatus, ...]:
        """One row per field, in ``fields`` order, for a loaded trace of this format."""
        ...


def by_name(fields: tuple[FieldSpec, ...]) -> dict[str, FieldSpec]:
    """The fields of a profile keyed by name (profiles build rows through this)."""
    return {spec.name: spec for spec in fields}


INDEXED = 3
"""Positions a location names (:func:`indexed`) before ``...``."""


def indexed(collection: str, indices: list[int], limit: int = INDEXED) -> str:
    """``tool_calls[0,2,5]`` (at most ``limit`` indices, then ``...``): a location in our terms."""
    if not indices:
        return collection
    shown = ",".join(map(str, indices[:limit]))
    more = ",..." if len(indices) > limit else ""
    return f"{collection}[{shown}{more}]"
