"""The loader's bounds: one frozen object, AgentGuard's defaults
(docs/trace-format.md, "Limits, in one place").

The order in which they are enforced is documented in docs/trace-format.md, step 1 and step 2.
"""

from __future__ import annotations

import msgspec


class Limits(msgspec.Struct, frozen=True):
    """Bounds enforced while a trace streams in, before the bytes they bound are decoded."""

    total_bytes: int = 16 * 1024 * 1024
    """Bytes in the whole trace, line terminators included."""
    line_bytes: int = 1024 * 1024
    """Bytes in one physical line, counting its terminator (``\\n`` or ``\\r\\n``)."""
    events: int = 10_000
    """Event records after the header; at most ``events + 1`` lines are read."""
    depth: int = 64
    """Nesting depth of one record; the record object itself is depth 0."""
    values: int = 100_000
    """JSON values in one record; every value, container or scalar, counts once."""
    string_chars: int = 4096
    """Characters in one string value."""
    diff_chars: int = 32_768
    """Characters in a string whose nearest key is ``unified_diff``."""
    list_items: int = 4096
    """Items in one list."""
    key_chars: int = 4096
    """Characters in one object key."""


DEFAULT_LIMITS = Limits()

#: Bounds for one OWASP harness trace: a single JSON document (docs/harness.md, "Bounds").
#: Harness traces carry whole tool results and documents, so strings may be far longer than an
#: AgentGuard record's; the document itself is capped at ``total_bytes`` before it is parsed.
HARNESS_LIMITS = Limits(
    total_bytes=16 * 1024 * 1024,
    line_bytes=16 * 1024 * 1024,
    events=100_000,
    depth=64,
    values=1_000_000,
    string_chars=1024 * 1024,
    diff_chars=1024 * 1024,
    list_items=100_000,
    key_chars=4096,
)

#: Bounds for one OWASP harness scenario YAML file, enforced on the YAML event stream before any
#: object is constructed: bytes, nesting depth, node count (``values``) and scalar length.
HARNESS_SCENARIO_LIMITS = Limits(
    total_bytes=1024 * 1024,
    line_bytes=1024 * 1024,
    events=0,
    depth=64,
    values=100_000,
    string_chars=256 * 1024,
    diff_chars=256 * 1024,
    list_items=10_000,
    key_chars=4096,
)


class WorkBudget(msgspec.Struct, frozen=True):
    """Bounds on the work done *after* loading: docs/threat-model.md, "Work budget".

    The loader's limits bound what a trace may hold; these bound what a command may do with it,
    so that no input within the loader's limits costs more than a small multiple of reading it.
    Reaching a bound is always reported with a stable code; a verdict is never silently cut.
    """

    evidence_lines: int = 4096
    """Evidence lines kept per replayed check: a trace line can record no more (``list_items``),
    so a check that finds more necessarily differs from what was recorded."""
    evidence_chars: int = 1024 * 1024
    """Characters of evidence kept per replayed check: a recorded check fits one line."""
    match_work: int = 3_000_000_000
    """Pattern-matching work per replayed trace, in units of about a third of a nanosecond:
    each glob or substring test costs ``len(subject) * weight + 1024`` (a glob's weight is its
    length plus 8 per ``*``), each glob compiled ``64`` per character plus ``100,000`` per
    ``*`` (tracekit/judging/replay/matching.py)."""
    marker_work: int = 1 << 30
    """Characters searched for forbidden markers per assertion: distinct markers x text."""
    source_bytes: int = 16 * 1024 * 1024
    """Bytes of one source artifact hashed; a larger file is reported, not hashed."""
    source_total_bytes: int = 256 * 1024 * 1024
    """Bytes of source artifacts hashed per trace, in all (a trace may list 64 sources); a source
    that would pass it is reported, not hashed."""
    redact_work: int = 40 * 1024 * 1024
    """Work units a redaction may spend scanning blob data (each blob a selector reads, and each
    member of a container original decompressed, in its decoded views): a unit is about what
    ``--match`` spends on a byte of text, about 25-40 ns here; each text, line and view is charged
    before it is read, and ``--secrets`` charges what detect-secrets' plugins may cost on each
    view (tracekit/bundle/credentials.py). Past it nothing is written
    (``redact.work_budget_exceeded``; ``tracekit redact --work-budget`` sets it): about 1.7 s
    at most here, so no redaction passes 10 times what ``verify`` takes (docs/threat-model.md,
    "Work budget"). ``--blob`` withholds by digest and scans nothing."""
    metamorphic_bytes: int = 40 * 1024 * 1024
    """Bytes of transformed traces a metamorphic study builds per source: each case is charged,
    before it runs, the source's size times the transform's weight plus the source replay's
    pattern-matching units / 128 (tracekit/judging/metamorphic/cases.py ``case_cost``); at the bound the
    source's remaining cases are not run (``metamorphic.work_budget_exceeded``; ``tracekit
    metamorphic --work-budget`` sets it). Two cases of a 16 MiB trace, every transform twice on
    a realistic 1 MiB one."""


DEFAULT_BUDGET = WorkBudget()


class BudgetExceeded(Exception):
    """Internal: a :class:`Meter` ran past its bound; the caller turns it into a finding."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


class Meter:
    """Counts units of work against one bound and raises :class:`BudgetExceeded` past it.

    Tests read ``used`` to assert on counts of work rather than on seconds.
    """

    __slots__ = ("limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def charge(self, units: int = 1) -> None:
        """Add ``units``; raise :class:`BudgetExceeded` when the total passes the bound."""
        self.used += units
        if self.used > self.limit:
            raise BudgetExceeded(self.limit)

    def refund(self, units: int) -> None:
        """Take back ``units`` charged in advance for work that was not done."""
        self.used -= units
