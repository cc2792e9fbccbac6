"""The typed page of ``tracekit report`` (docs/report.md): plain frozen records, built by
:mod:`tracekit.report.html.build` and drawn by the Jinja2 templates next to this module.

Every string here that came from a trace is shown as text: the templates run with autoescaping
on, and nothing from a trace ever reaches an attribute other than through that escaping
(docs/threat-model.md, "The HTML report").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Folded:
    """A text from the trace, cut to what the report's budget allows (docs/report.md, "Bounds")."""

    text: str
    """What is shown: the first ``shown`` characters."""
    size: int
    """The whole text's size in UTF-8 bytes."""
    chars: int
    """The whole text's length in characters."""
    shown: int

    @property
    def folded(self) -> bool:
        return self.shown < self.chars


@dataclass(frozen=True, slots=True)
class Item:
    """One entry of an episode's timeline: a message or a tool call with its result."""

    kind: str
    """``message``, ``call``, ``turn`` (a model turn's header) or ``folded`` (where entries were
    left out)."""
    title: str
    """Our words: ``user message #3``, ``call #2, turn 1``."""
    tool: str | None = None
    text: Folded | None = None
    arguments: Folded | None = None
    result: Folded | None = None
    outcome: str | None = None
    """For a call: ``succeeded``, ``failed`` or ``no_result`` (docs/findings.md, "Provenance")."""


@dataclass(frozen=True, slots=True)
class Node:
    """One box of a provenance chain."""

    role: str
    """``source``, ``call`` or ``result``: the box's colour."""
    lines: tuple[str, str, str]
    """The box's three lines of text: what, which, how."""
    x: int


@dataclass(frozen=True, slots=True)
class Chain:
    """One failed assertion's provenance chain, drawn as an inline SVG."""

    assertion: str
    nodes: tuple[Node, ...]
    width: int
    note: str


@dataclass(frozen=True, slots=True)
class Assertion:
    id: str
    result: str


@dataclass(frozen=True, slots=True)
class ToolVerdict:
    scorer: str
    says: str
    agreement: str


@dataclass(frozen=True, slots=True)
class Row:
    """A completeness row (docs/audit.md, "Completeness") or a finding."""

    first: str
    second: str
    third: str
    fourth: str = ""


@dataclass(frozen=True, slots=True)
class Episode:
    """One episode's section."""

    anchor: str
    file_anchor: str
    path: str
    label: str
    format: str
    counts: str
    result: str | None
    """Our verdict under ``--scenario``; None without one."""
    refused: str | None
    assertions: tuple[Assertion, ...]
    chains: tuple[Chain, ...]
    tool_verdicts: tuple[ToolVerdict, ...]
    disagrees: bool
    completeness: tuple[Row, ...]
    findings: tuple[Row, ...]
    timeline: tuple[Item, ...]
    timeline_folded: int
    """Timeline entries left out (over the per-episode bound)."""


@dataclass(frozen=True, slots=True)
class File:
    """One input file as the overview lists it."""

    anchor: str
    path: str
    kind: str
    """``trace``, ``bundle``, ``skipped`` or ``unreadable``."""
    format: str
    exit_code: int | None
    integrity: str
    reason: str
    episodes: tuple[tuple[str, str], ...] = ()
    """(anchor, label) of each episode section shown."""
    episodes_total: int = 0


@dataclass(frozen=True, slots=True)
class Bundle:
    """One sealed bundle's verification (docs/bundle-format.md, step 10)."""

    anchor: str
    path: str
    exit_code: int
    kind: str
    root: str
    records: int
    blobs: int
    formats: str
    signature: str
    signers: tuple[str, ...]
    trusted_signers: tuple[str, ...]
    withheld: tuple[Row, ...]
    withheld_total: int
    findings: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    count: int
    width: int
    y: int


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    bars: tuple[Bar, ...]
    height: int


@dataclass(frozen=True, slots=True)
class Page:
    """The whole report."""

    title: str
    exit_code: int
    scenario: str | None
    strict: bool
    summary: tuple[Row, ...]
    charts: tuple[Chart, ...]
    files: tuple[File, ...]
    files_folded: int
    bundles: tuple[Bundle, ...]
    episodes: tuple[Episode, ...]
    episodes_folded: int
    notes: tuple[str, ...]
    """What was folded or left out, in our words (docs/report.md, "Bounds")."""
