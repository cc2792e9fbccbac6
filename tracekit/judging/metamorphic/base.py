"""The transform protocol: what a metamorphic transform is, what it promises, and how it says
"this trace gives me nothing to work on" (docs/metamorphic.md).

A transform rewrites a *typed* trace (a :class:`~tracekit.formats.agentguard.writer.DraftTrace` parsed from a
verified trace), never the text of its lines, and is deterministic given (trace, trial, seed).
It returns either a draft, which the runner re-chains with the verifier's own hashing
(``metamorphic.rechain.write_draft``, the same bytes as ``tracekit.formats.agentguard.writer.write_trace``), or
finished bytes when the bytes themselves are the point (an unrepaired invalid trace, a
non-canonical re-encoding).

Every transform declares its class and the :class:`Relation` it expects between the source's
recomputed verdict and the transformed trace's:

* ``preserving`` -> ``same_outcome``: result, score, failed and warning sets and every check's
  status are unchanged;
* ``changing`` -> ``check_fails`` (one of the named checks fails) or ``check_passes`` (a
  repairing transform: the named check passes again);
* ``invalid`` -> ``verify_rejects``: verify exits 2.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.kernel.errors import Code


class Klass(enum.StrEnum):
    """A transform's class (docs/metamorphic.md): what it is allowed to do to the verdict."""

    PRESERVING = "preserving"
    CHANGING = "changing"
    INVALID = "invalid"


class RelationKind(enum.StrEnum):
    """The relation a case is judged by (relations.py)."""

    SAME_OUTCOME = "same_outcome"
    CHECK_FAILS = "check_fails"
    CHECK_PASSES = "check_passes"
    VERIFY_REJECTS = "verify_rejects"


CLASS_OF_RELATION: dict[RelationKind, Klass] = {
    RelationKind.SAME_OUTCOME: Klass.PRESERVING,
    RelationKind.CHECK_FAILS: Klass.CHANGING,
    RelationKind.CHECK_PASSES: Klass.CHANGING,
    RelationKind.VERIFY_REJECTS: Klass.INVALID,
}
"""Which class each relation belongs to; the registry test holds every transform to it."""


@dataclass(frozen=True, slots=True)
class Relation:
    """What must hold between the source and the transformed trace."""

    kind: RelationKind
    checks: tuple[str, ...] = ()
    """Registered check ids: any one of them must fail (check_fails) or all must pass
    (check_passes). Empty for the other kinds."""
    notice: Code | None = None
    """A notice verify must report on the transformed bytes (canonical re-encoding)."""
    same_trace_id: bool = False
    """The transformed trace must keep the source's trace id (a pure re-encoding)."""

    def describe(self) -> str:
        """Fixed text for tables and docs, built from our own names only."""
        if self.kind is RelationKind.SAME_OUTCOME:
            text = "same outcome"
            if self.same_trace_id:
                text += ", same trace id"
            if self.notice is not None:
                text += f", notice {self.notice.value}"
            return text
        if self.kind is RelationKind.CHECK_FAILS:
            return " or ".join(self.checks) + " fails"
        if self.kind is RelationKind.CHECK_PASSES:
            return " and ".join(self.checks) + " passes again"
        return "verify exits 2"


class NotApplicable(Exception):
    """Raised by :meth:`Transform.apply` when the trace offers nothing the transform can act on
    (no test pattern to match, no added lines to exceed a threshold with, ...).

    ``reason`` is fixed text from our own vocabulary; it never quotes the trace.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Transform(Protocol):
    """One registered metamorphic transform (one module under ``transforms/``)."""

    @property
    def name(self) -> str:
        """The stable name used with ``--transform`` (``timestamp_variation``)."""
        ...

    @property
    def klass(self) -> Klass:
        """preserving, changing or invalid."""
        ...

    @property
    def relation(self) -> Relation:
        """The relation a case of this transform is judged by."""
        ...

    @property
    def summary(self) -> str:
        """One sentence: what the transform changes (docs and ``--help``)."""
        ...

    @property
    def upstream(self) -> bool:
        """True for the ten transforms upstream defines (docs/metamorphic.md)."""
        ...

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace | bytes:
        """Return the transformed trace; never mutates ``draft``.

        Deterministic given (``draft``, ``trial``, ``seed``). Raises :class:`NotApplicable` when
        the trace gives the transform nothing to act on.
        """
        ...
