"""Renderers for audit reports: JSON (report_version 1), a plain-text table, Markdown, and the
findings view JUnit and SARIF take.

Pure, over typed reports: each trace's :class:`~tracekit.judging.audit.model.AuditReport` (streamed, from
a spool) and the campaign's :class:`~tracekit.judging.audit.campaign.CampaignSummary`. JSON is derived
from the Structs. Finding messages are fixed text and locations are in our own terms; scenario
assertion evidence (which may quote the trace, as upstream's does) appears in JSON only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from tracekit import REPORT_VERSION
from tracekit.judging.audit.campaign import CampaignSummary
from tracekit.judging.audit.model import AuditFinding, AuditReport, EpisodeAudit, FieldStatus
from tracekit.kernel.errors import worst
from tracekit.report.audit_rows import FILE_HEADERS, FILE_LINE, printed_row, yes
from tracekit.report.findings import FindingRow, TraceFindings
from tracekit.report.jsonout import Preformatted, Shared, Streamed, dumps_chunks, preformatted
from tracekit.report.text import display_path, md_escape, md_table, table

if TYPE_CHECKING:
    from tracekit.report.skipped import SkippedFile

TOP_FIELDS = 12
Cell = str | int


def render_json(traces: Sequence[AuditReport], summary: CampaignSummary) -> str:
    """``{report_version, exit_code, traces, summary}``, byte-stable."""
    exit_code = worst(*(t.exit_code for t in traces))
    return "".join(json_chunks(traces, summary, exit_code))


def json_chunks(
    traces: Iterable[AuditReport], summary: CampaignSummary, exit_code: int, skipped: Sequence[SkippedFile] = ()
) -> Iterator[str]:
    """:func:`render_json` in chunks, streaming ``traces`` (from a spool) without holding them;
    the walked files left out are listed under ``skipped`` with their codes, when there are any
    (docs/cli.md, "Inputs and folders")."""
    head: dict[str, object] = {
        "report_version": REPORT_VERSION,
        "exit_code": int(exit_code),
        "summary": msgspec.to_builtins(summary),
    }
    if skipped:
        head["skipped"] = [{"trace": s.trace, "code": s.code} for s in skipped]
    episodes = _Episodes()
    return dumps_chunks(head, {"traces": (_trace(t, episodes) for t in traces)})


def _trace(report: AuditReport, episodes: _Episodes) -> dict[str, Any]:
    """One trace's element; an imported file's episodes made one at a time as they are written
    (a file of 5,000 episodes is a document of about 50 MB)."""
    document: dict[str, Any] = msgspec.to_builtins(msgspec.structs.replace(report, episodes=(), findings=()))
    if report.episodes:  # a spooled report's episodes are read back only here, as they are written
        document["episodes"] = Streamed(episodes.element(e) for e in report.episodes)
    if report.findings:  # a file of many episodes can hold a few per episode
        document["findings"] = Streamed(_element(f) for f in report.findings)
    return document


_SORTED = msgspec.json.Encoder(order="sorted")


def _element(item: EpisodeAudit | AuditFinding) -> Any:
    """One episode's or finding's element: rendered by msgspec when that gives the json
    module's bytes (:func:`~tracekit.report.jsonout.preformatted`), several times faster; else
    its builtins."""
    return preformatted(_SORTED.encode(item)) or msgspec.to_builtins(item)


_UNSEEN = Preformatted()
"""Not yet rendered (told apart by identity: no rendering is this object)."""
SHARED_KEPT = 256
"""Distinct episode renderings :class:`_Episodes` keeps (then it starts again)."""


class _Episodes:
    """Each episode's element of the JSON report. A file's episodes repeat a few completeness
    tables and findings lists: each distinct pair is rendered once (:func:`_element`, keys
    sorted, so the ``id`` comes last), and an episode with the same pair is that text up to its
    ``id`` (:class:`~tracekit.report.jsonout.Shared`) and its own ``id``. Any text the json
    module would render otherwise (an escape, a byte past ASCII) goes the whole way."""

    def __init__(self) -> None:
        self._shared: dict[tuple[tuple[FieldStatus, ...], tuple[AuditFinding, ...]], Preformatted | None] = {}

    def element(self, episode: EpisodeAudit) -> Any:
        own = _own(episode.id)
        if own is None:
            return _element(episode)
        key = (episode.completeness, episode.findings)
        shared = self._shared.get(key, _UNSEEN)
        if shared is _UNSEEN:  # the first episode with this pair: rendered whole
            whole = _element(episode)
            if len(self._shared) >= SHARED_KEPT:
                self._shared.clear()
            self._shared[key] = _before(whole, own)
            return whole
        return _element(episode) if shared is None else Shared(shared, own)


def _own(label: str) -> Preformatted | None:
    """The end of an episode's element from its ``id`` on (its value, the closing brace), or
    None when the json module would write the value otherwise (:func:`preformatted`)."""
    encoded = msgspec.json.encode(label)
    if not encoded.isascii() or b"\\" in encoded or b"\x7f" in encoded:
        return None
    return Preformatted(encoded.decode("ascii") + "\n}")


def _before(element: Any, own: str) -> Preformatted | None:
    """``element``'s text before ``own`` (which ends it after ``"id": ``), or None."""
    if not isinstance(element, Preformatted) or not element.endswith('"id": ' + own):
        return None
    return Preformatted(element[: len(element) - len(own)])


def as_findings(traces: Iterable[AuditReport]) -> list[TraceFindings]:
    """What JUnit and SARIF take (tracekit/report/findings.py): path, exit code, findings."""
    return [
        TraceFindings(
            t.path,
            t.exit_code,
            tuple(FindingRow(f.code.value, f.severity.value, f.line, f.message) for f in t.findings),
        )
        for t in traces
    ]


def _path(trace: AuditReport) -> str:
    return display_path(trace.path)


def verdict_line(trace: AuditReport) -> str:
    """One line: format, exit code, integrity, rerunnability, replay or scenario outcome."""
    parts = [
        f"format {trace.format}",
        f"exit {trace.exit_code}",
        f"intact {yes(trace.intact)}",
        f"rerunnable {yes(trace.rerunnable)}",
    ]
    if len(trace.episodes) > 1:
        parts.append(f"{len(trace.episodes)} episodes")
    if trace.outcome:
        parts.append(f"recorded outcome {trace.outcome}")
    if trace.replay is not None:
        parts.append(f"replay {trace.replay.equivalence or 'not replayable'}")
    if trace.harness is not None:
        parts.append(f"scenario result {trace.harness.result} ({_mode(trace.harness.strict)})")
    return ", ".join(parts)


def _mode(strict: bool) -> str:
    """The scenario's mode name: the harness package (and YAML with it) is loaded only for a
    report that holds a scenario's result, not by every audit (docs/performance.md, "Campaigns")."""
    from tracekit.judging.harness.model import mode_name

    return mode_name(strict)


SHOWN_IDS = 10
"""Episode ids named under a trace's verdict line; the JSON report and `tracekit show` list all."""


def episode_line(trace: AuditReport) -> str | None:
    """The episodes' ids by position, so that a location such as ``episodes[2]`` names an
    episode as show, check and the store do (docs/cli.md, "Episode ids")."""
    if not trace.episodes:
        return None
    named = ", ".join(f"[{i}] {e.id}" for i, e in enumerate(trace.episodes[:SHOWN_IDS]))
    more = len(trace.episodes) - SHOWN_IDS
    return f"episodes: {named}" + (f", and {more} more (-f json lists every id)" if more > 0 else "")


_LOCATED = ((" ({where})", ""), (" (first: {where})", ""), (", first: {where})", ")"))
"""How a finding's message names its location (the codes' fixed texts in tracekit/kernel/errors.py)."""


def short_message(found: AuditFinding) -> str:
    """The message without the location it repeats: tables show that in their ``where``
    column (JSON, SARIF and the store keep the whole message)."""
    if found.where is None:
        return found.message
    for pattern, replacement in _LOCATED:
        located = pattern.format(where=found.where)
        if located in found.message:
            return found.message.replace(located, replacement, 1)
    return found.message


def _findings(findings: Sequence[AuditFinding]) -> list[list[Cell]]:
    return [[f.severity.value, f.code.value, f.line or "-", f.where or "-", short_message(f)] for f in findings]


ROWS_AT_ONCE = 2048
"""Findings a table is laid out from at once: a file of many episodes can hold a few each."""


def _parts(findings: Sequence[AuditFinding]) -> Iterator[Sequence[AuditFinding]]:
    for start in range(0, len(findings), ROWS_AT_ONCE):
        yield findings[start : start + ROWS_AT_ONCE]


def _finding_table(findings: Sequence[AuditFinding]) -> Iterator[str]:
    """``table(_findings(findings), FINDING_HEADERS, widths=FINDING_WIDTHS)`` in pieces, laid
    out :data:`ROWS_AT_ONCE` rows at a time: each part's table is measured (its rule line gives
    its columns' widths), then laid out again with every column as wide as the widest part's,
    which is how the whole table is laid out (cells are wrapped one at a time, left-aligned,
    ASCII: our own codes, locations and fixed texts)."""
    if len(findings) <= ROWS_AT_ONCE:
        yield table(_findings(findings), FINDING_HEADERS, widths=FINDING_WIDTHS)
        return
    widths = [0] * len(FINDING_HEADERS)
    for part in _parts(findings):
        spans = _spans(table(_findings(part), FINDING_HEADERS, widths=FINDING_WIDTHS).split("\n", 2)[1])
        widths = [max(width, end - start) for width, (start, end) in zip(widths, spans, strict=True)]
    for n, part in enumerate(_parts(findings)):
        lines = table(_findings(part), FINDING_HEADERS, widths=FINDING_WIDTHS).split("\n")
        spans = _spans(lines[1])
        lines[1] = "  ".join("-" * width for width in widths)
        cells = [(start, end if i + 1 < len(spans) else None) for i, (start, end) in enumerate(spans)]
        for i in range(0 if n == 0 else 2, len(lines)):
            if i != 1:
                lines[i] = "  ".join(lines[i][a:b].ljust(w) for (a, b), w in zip(cells, widths, strict=True)).rstrip()
        yield ("\n" if n else "") + "\n".join(lines if n == 0 else lines[2:])


def _spans(rule: str) -> list[tuple[int, int]]:
    """The columns of a table, from its rule line (``----  -------``): each run of dashes."""
    spans: list[tuple[int, int]] = []
    start = 0
    for run in rule.split("  "):
        spans.append((start, start + len(run)))
        start += len(run) + 2
    return spans


def _completeness(trace: AuditReport) -> list[list[Cell]]:
    return [
        [r.field, r.status, "yes" if r.needed_to_rerun else "no", r.where] for r in trace.completeness
    ]


def _summary_rows(summary: CampaignSummary) -> list[list[Cell]]:
    demo, exits = summary.demonstrations, summary.exit_codes
    return [
        ["traces", summary.total],
        ["rerunnable by a colleague", f"{summary.rerunnable} of {summary.total}"],
        ["intact (hash chain)", summary.intact],
        ["not intact", summary.not_intact],
        ["no integrity mechanism (harness, imported formats)", summary.no_integrity_mechanism],
        ["unreadable", summary.unreadable],
        ["consistent (AgentGuard)", summary.consistent],
        ["verdict reproduced", summary.verdict_reproduced],
        ["verdict not reproduced", summary.verdict_not_reproduced],
        ["traces recording a hit", demo.traces_recording_a_hit],
        ["distinct demonstrations among them", demo.distinct_demonstrations],
        [
            "recorded findings / distinct payloads",
            f"{demo.recorded_findings} / {demo.distinct_recorded_findings}",
        ],
        ["exit 0 / 1 / 2", f"{exits.ok} / {exits.findings} / {exits.error}"],
        ["non-trace files skipped", summary.skipped_non_trace_files],
    ]


FORMAT_HEADERS = ["format", "traces", "episodes", "intact", "readable", "rerunnable"]
POLICY_HEADERS = ["format", "scenario", "episodes", "failed", "disagreements"]


def _policy_rows(summary: CampaignSummary) -> list[list[Cell]]:
    """With --scenario: episodes judged and failed per format and scenario."""
    return [
        [fmt, display_path(scenario), row.episodes, row.failed, row.disagreements]
        for fmt, rows in summary.by_policy.items()
        for scenario, row in rows.items()
    ]


def _format_rows(summary: CampaignSummary) -> list[list[Cell]]:
    """The campaign counted by format (``intact`` counts only formats with integrity data)."""
    return [
        [fmt, row.traces, row.episodes, row.intact, row.readable, row.rerunnable]
        for fmt, row in summary.by_format.items()
    ]


def _gap_rows(summary: CampaignSummary) -> list[list[Cell]]:
    return [
        [g.format, g.field, g.missing, g.partial, g.not_carried, "yes" if g.needed_to_rerun else "no"]
        for g in summary.fields_missing_most[:TOP_FIELDS]
    ]


MARKDOWN_NOTE = (
    "Integrity is not authenticity: an intact hash chain shows a trace is self-consistent, not "
    "who wrote it. See docs/audit.md for every finding code."
)
SCENARIO_NOTE = "scenario {id} ({mode}): {result} ({assertions})"
GAP_HEADERS = ["format", "field", "missing", "partial", "not carried", "needed to rerun"]
FINDING_HEADERS = ["severity", "code", "line", "where", "message"]
FINDING_WIDTHS = [None, None, None, 40, 72]
"""The message and location columns wrap, so a finding row stays readable in a terminal."""
FIELD_HEADERS = ["field", "status", "needed to rerun", "where"]


def _scenario(trace: AuditReport) -> str | None:
    harness = trace.harness
    if harness is None:
        return None
    if harness.episodes_judged is not None:  # an imported format: the scenario on every episode
        return display_path(
            f"scenario {harness.scenario_id} ({_mode(harness.strict)}): {harness.result}; "
            f"{harness.episodes_failed} of {harness.episodes_judged} episode(s) fail"
        )
    listed = ", ".join(f"{a.id}={a.result}" for a in harness.assertions or ())
    return display_path(SCENARIO_NOTE.format(
        id=harness.scenario_id, mode=_mode(harness.strict), result=harness.result, assertions=listed
    ))


def table_chunks(
    traces: Iterable[AuditReport], summary: CampaignSummary, verbose: bool = False,
    rows: Iterable[str] | None = None,
) -> Iterator[str]:
    """A campaign: its summary first, then one row per file; with ``verbose``, each file's
    block too (docs/audit.md, "Reading the table"). A single trace: its block. One chunk per
    trace, so a campaign streams without being held. ``rows``: the files' rows as printed
    (each after a newline), when the caller has them without the reports (a campaign's
    workers sent them: cli/audit_run.py); else made from ``traces``."""
    if summary.total == 1:
        yield from _blocks(traces, first=True)
        yield "\n"
        return
    tail = ["== campaign summary", MARKDOWN_NOTE, "", table(_summary_rows(summary), tablefmt="plain")]
    if summary.by_format:
        tail += ["", "by format:", table(_format_rows(summary), FORMAT_HEADERS)]
    if summary.by_policy:
        tail += ["", "by policy:", table(_policy_rows(summary), POLICY_HEADERS)]
    if summary.fields_missing_most:
        tail += ["", "fields missing most:", table(_gap_rows(summary), GAP_HEADERS)]
    yield "\n".join(tail)
    yield "\n\n== files (exit, intact, rerunnable, episodes, findings of warning or worse; --verbose for each file's tables)"
    yield "\n" + FILE_LINE.format(*FILE_HEADERS)
    if verbose:
        yield from _blocks(traces, first=False)
    elif rows is None:
        for trace in traces:
            yield printed_row(trace, len(trace.episodes))
    else:
        yield from rows
    yield "\n"


def _blocks(traces: Iterable[AuditReport], first: bool) -> Iterator[str]:
    """Per trace: a verdict line, the completeness table and the findings by severity."""
    for trace in traces:
        lines = [f"== {_path(trace)}", verdict_line(trace)]
        if (ids := episode_line(trace)) is not None:
            lines.append(ids)
        if (scenario := _scenario(trace)) is not None:
            lines.append(scenario)
        if trace.completeness:
            lines += ["", table(_completeness(trace), FIELD_HEADERS)]
        yield ("" if first else "\n\n") + "\n".join(lines)
        first = False
        if trace.findings:
            yield "\n\n"
            yield from _finding_table(trace.findings)


def render_table(traces: Iterable[AuditReport], summary: CampaignSummary) -> str:
    """:func:`table_chunks` as one string."""
    return "".join(table_chunks(traces, summary))


def markdown_chunks(traces: Iterable[AuditReport], summary: CampaignSummary) -> Iterator[str]:
    """The same content as Markdown, for a review document; every cell escaped."""
    yield "\n".join(["# tracekit audit", "", MARKDOWN_NOTE, ""]) + "\n"
    for trace in traces:
        out = [f"## {md_escape(_path(trace))}", "", md_escape(verdict_line(trace)), ""]
        if (ids := episode_line(trace)) is not None:
            out += [md_escape(ids), ""]
        if (scenario := _scenario(trace)) is not None:
            out += [md_escape(scenario), ""]
        if trace.completeness:
            out += ["### Completeness", "", *md_table(FIELD_HEADERS, _completeness(trace)), ""]
        if trace.findings:
            yield "\n".join([*out, "### Findings", "", *md_table(FINDING_HEADERS, [])]) + "\n"
            for part in _parts(trace.findings):  # each row stands alone: ROWS_AT_ONCE at a time
                yield "\n".join(md_table(FINDING_HEADERS, _findings(part))[2:]) + "\n"
            out = [""]
        yield "\n".join(out) + "\n"
    if summary.total != 1:
        out = ["## Campaign summary", "", *md_table(["measure", "value"], _summary_rows(summary)), ""]
        if summary.by_format:
            out += ["### By format", "", *md_table(FORMAT_HEADERS, _format_rows(summary)), ""]
        if summary.by_policy:
            out += ["### By policy", "", *md_table(POLICY_HEADERS, _policy_rows(summary)), ""]
        if summary.fields_missing_most:
            out += ["### Fields missing most", "", *md_table(GAP_HEADERS, _gap_rows(summary)), ""]
        yield "\n".join(out) + "\n"


def render_markdown(traces: Iterable[AuditReport], summary: CampaignSummary) -> str:
    """:func:`markdown_chunks` as one string."""
    return "".join(markdown_chunks(traces, summary))


def summary_line(summary: CampaignSummary, exit_code: int) -> str:
    """The one-line stderr summary; with ``--scenario``, the disagreements with the tools' own
    verdicts too (docs/cli.md, "Verdicts and modes")."""
    rows = [row for policies in summary.by_policy.values() for row in policies.values()]
    judged = f", {sum(r.disagreements for r in rows)} disagreement(s) with the tool's verdict" if rows else ""
    return (
        f"tracekit audit: {summary.total} trace(s), {summary.episodes} episode(s), "
        f"{summary.rerunnable} rerunnable, "
        f"{summary.intact} intact, {summary.not_intact} not intact, "
        f"{summary.unreadable} unreadable{judged}"
        + (f", {summary.skipped_non_trace_files} non-trace file(s) skipped" if summary.skipped_non_trace_files else "")
        + f"; exit {int(exit_code)}"
    )
