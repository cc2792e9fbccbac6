"""Renderers for ``tracekit check`` on third-party formats (docs/findings.md, "Command line").

Two typed reports: :class:`FindingsReport` (one file, one row per episode) and
:class:`CampaignReport` (several files: counts per format and policy, distinct demonstrations).
JSON is derived by msgspec from the Structs, SARIF from report/findings_sarif.py's. Table,
Markdown, JUnit and SARIF show our words (assertion ids, origin kinds, outcomes) and, where
provenance needs them, the tool names, call ids and episode ids of the input: those pass through
:func:`shown`, which escapes them like a path (display_path) and bounds their length, so no
input can drive a terminal or fill a screen.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Literal

import msgspec

from tracekit import REPORT_VERSION
from tracekit.judging.findings.campaign import Demonstration, PolicyCount
from tracekit.judging.findings.judge import AssertionVerdict, EpisodeVerdict, ToolVerdict
from tracekit.judging.findings.provenance import CallRef, Origin
from tracekit.judging.harness.model import FAIL, PASS, Outcome, gates
from tracekit.report.findings_sarif import (
    MISMATCH,
    FindingResult,
    FindingsRun,
    FindingsRunProperties,
    findings_run,
    location,
    sarif_text,
)
from tracekit.report.harness_json import document
from tracekit.report.harness_text import xml_safe
from tracekit.report.jsonout import struct_chunks
from tracekit.report.sarif import Text
from tracekit.report.skipped import SkippedFile
from tracekit.report.text import display_path, md_table, table

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

SHOWN_LIMIT = 64
"""Longest input-supplied name (tool, call id, episode id) shown in a table, Markdown, JUnit or
SARIF; longer ones are cut and end in ``...``."""
SAMPLE_LIMIT = 1000
"""Most skipped files a campaign report lists (the rest are counted)."""

ORIGIN_WORDS = {
    "system_prompt": "the system prompt",
    "user_instruction": "the user's instruction",
    "assistant_message": "an assistant message",
    "tool_result": "a tool result",
    "model": "the model (found nowhere earlier)",
}


def shown(value: str | None) -> str:
    """An input-supplied name for display: escaped like a path and at most SHOWN_LIMIT long."""
    if value is None:
        return "-"
    text = display_path(value)
    return text if len(text) <= SHOWN_LIMIT else text[: SHOWN_LIMIT - 3] + "..."


class EpisodeEntry(msgspec.Struct, frozen=True):
    """One episode in the report: tracekit's verdict, or the consistency code that refused it."""

    episode: str
    result: Outcome
    assertions: tuple[AssertionVerdict, ...]
    tool_verdicts: tuple[ToolVerdict, ...] = ()
    refused: str | None = None
    """A consistency code (docs/findings.md, "Consistency"): the episode was not judged."""

    @classmethod
    def of(cls, verdict: EpisodeVerdict) -> EpisodeEntry:
        return cls(verdict.episode, verdict.result, verdict.assertions, verdict.tool_verdicts)


class FindingsReport(msgspec.Struct, frozen=True):
    """``check`` on one third-party file: every episode (or the one asked for)."""

    report_version: int
    scenario: str
    format: str
    strict: bool
    episodes: tuple[EpisodeEntry, ...]
    disagreements: int = 0
    """Episodes where the tool's own verdict disagrees with ours (``audit.outcome_mismatch``)."""


class CampaignReport(msgspec.Struct, frozen=True):
    """``check`` over several files: per format and policy, and each distinct finding once."""

    report_version: int
    scenarios: tuple[str, ...]
    strict: bool
    files: int
    episodes: int
    failed: int
    counts: tuple[PolicyCount, ...]
    distinct: tuple[Demonstration, ...]
    distinct_overflow: int
    skipped: tuple[SkippedFile, ...]
    skipped_total: int


def _json(report: msgspec.Struct) -> str:
    return document(report)


def call_words(call: CallRef) -> str:
    """``send_email (turn 1, call c-1) succeeded``."""
    ident = f", call {shown(call.call_id)}" if call.call_id is not None else ""
    return f"{shown(call.tool)} (turn {call.turn}{ident}) {call.outcome.replace('_', ' ')}"


def origin_words(origin: Origin | None) -> str:
    """Where the offending value came from, in words: ``result of read_email (turn 0)``."""
    if origin is None:
        return "no value to trace"
    if origin.kind == "tool_result" and origin.call is not None:
        ident = f", call {shown(origin.call.call_id)}" if origin.call.call_id is not None else ""
        words = f"result of {shown(origin.call.tool)} (turn {origin.call.turn}{ident})"
    else:
        words = ORIGIN_WORDS[origin.kind]
        if origin.message_index is not None:
            words += f" (message {origin.message_index})"
    return words + (" ignoring case" if origin.match == "case_insensitive" else "")


def _failing(entry: EpisodeEntry) -> list[AssertionVerdict]:
    return [a for a in entry.assertions if a.result != PASS]


def _cells(entry: EpisodeEntry) -> list[str]:
    failing = _failing(entry)
    # A pass with provenance is a recipient the user asked for (docs/findings.md): shown, so a
    # reader sees why it is not exfiltration.
    chains = [a for a in entry.assertions if a.result in (FAIL, PASS) and a.provenance is not None]
    origin = "; ".join(
        f"{a.id}: {origin_words(a.provenance.origin)}" + (" (user-requested, pass)" if a.result == PASS else "")
        for a in chains if a.provenance
    )
    calls = "; ".join(f"{a.id}: {call_words(a.provenance.call)}" for a in chains if a.provenance)
    tools = "; ".join(f"{shown(t.scorer)} {t.agreement}" for t in entry.tool_verdicts if t.agreement == "disagree")
    if entry.refused is not None:
        listed = f"refused ({entry.refused})"
    else:
        listed = ", ".join(f"{a.id} {a.result}" for a in failing) or "-"
    return [shown(entry.episode), entry.result, listed, origin or "-", calls or "-", tools or "-"]


HEADERS = ["episode", "result", "not passing", "offending value from", "offending call", "tool verdict disagrees"]


def _counts(episodes: Sequence[EpisodeEntry]) -> str:
    tally = {k: sum(1 for e in episodes if e.result == k) for k in ("pass", "fail", "error", "not_run")}
    return ", ".join(f"{n} {k}" for k, n in tally.items())


def one_table(report: FindingsReport) -> str:
    mode = "strict" if report.strict else "compatible"
    head = (
        f"scenario {shown(report.scenario)} ({mode}), format {report.format}: "
        f"{len(report.episodes)} episode(s), {_counts(report.episodes)}, "
        f"{report.disagreements} disagree with the tool's verdict"
    )
    rows = [_cells(e) for e in report.episodes]
    # An episode id is printed whole, never wrapped: it is what --episode takes (docs/cli.md,
    # "Episode ids").
    return head + "\n\n" + table(rows, HEADERS, widths=[None, 8, 28, 34, 34, 24]) + "\n"


def one_markdown(report: FindingsReport) -> str:
    mode = "strict" if report.strict else "compatible"
    lines = [
        f"# Findings: scenario {shown(report.scenario)}",
        "",
        f"- Format: {report.format}; mode: {mode}",
        f"- Episodes: {len(report.episodes)} ({_counts(report.episodes)}); "
        f"{report.disagreements} disagree with the tool's verdict",
        "",
        *md_table(HEADERS, [_cells(e) for e in report.episodes]),
    ]
    return "\n".join(lines) + "\n"


EVIDENCE_LIMIT = 240
"""Longest evidence text (an assertion's own words, which may quote the trace) in JUnit or SARIF."""


def evidence_words(a: AssertionVerdict) -> str:
    """The evidence of an assertion that has no provenance to show (a harness trace judged as
    upstream does), escaped like a path and bounded; empty otherwise."""
    if a.provenance is not None or not a.evidence:
        return ""
    text = display_path(a.evidence)
    return text if len(text) <= EVIDENCE_LIMIT else text[: EVIDENCE_LIMIT - 3] + "..."


def _case_text(entry: EpisodeEntry) -> str:
    said = [f"{a.id}: {words}" for a in _failing(entry) if (words := evidence_words(a))]
    return " | ".join([c for c in _cells(entry)[2:] if c != "-"] + said)


def one_junit(report: FindingsReport, trace: str) -> str:
    """One testcase per episode (:func:`one_testsuite`) in a ``<testsuites>``."""
    from xml.etree.ElementTree import Element

    root = Element("testsuites", name="tracekit check")
    root.append(one_testsuite(report, trace))
    return junit_text(root)


def junit_text(root: Element) -> str:
    """``root`` as a JUnit XML document."""
    from xml.etree.ElementTree import tostring

    return '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode") + "\n"


def one_testsuite(report: FindingsReport, trace: str) -> Element:
    """One file's ``<testsuite>``: one testcase per episode, a failure when the result gates
    (``--exit-on-fail``), an error for a refused episode."""
    from xml.etree.ElementTree import Element, SubElement

    gated = [e for e in report.episodes if e.refused is None and gates(e.result, report.strict)]
    refused = [e for e in report.episodes if e.refused is not None]
    suite = Element(
        "testsuite", name=xml_safe(f"tracekit check {shown(report.scenario)}"),
        tests=str(len(report.episodes)), failures=str(len(gated)), errors=str(len(refused)),
    )
    unjudged = sum(
        1 for e in report.episodes if e.refused is None and e.result == "not_run" and not gates(e.result, report.strict)
    )
    suite.set("skipped", str(unjudged))
    properties = SubElement(suite, "properties")
    SubElement(properties, "property", name="mode", value="strict" if report.strict else "compatible")
    SubElement(properties, "property", name="disagreements", value=str(report.disagreements))
    for entry in report.episodes:
        case = SubElement(
            suite, "testcase", classname=xml_safe(f"tracekit.check.{display_path(trace)}"), name=xml_safe(shown(entry.episode))
        )
        if entry.refused is not None:
            node = SubElement(case, "error", type=entry.refused, message="episode not judged")
            node.text = xml_safe(entry.refused)
        elif gates(entry.result, report.strict):
            failing = _failing(entry)
            worst = [a for a in failing if a.result in (FAIL, "error")] or failing
            node = SubElement(case, "failure", type=worst[0].id if worst else entry.result, message=entry.result)
            node.text = xml_safe(_case_text(entry))
        elif entry.result == "not_run":  # compatible mode: not gated, yet never shown as a pass
            node = SubElement(case, "skipped", message="not_run")
            node.text = xml_safe(_case_text(entry))
    return suite


def one_sarif(report: FindingsReport, trace: str) -> str:
    """One SARIF result per assertion that did not pass (:func:`episode_results`)."""
    results = [r for entry in report.episodes for r in episode_results(entry, trace)]
    properties = FindingsRunProperties("check", shown(report.scenario), "strict" if report.strict else "compatible")
    return sarif_text(findings_run(sorted({r.ruleId for r in results}), results, properties))


def episode_results(entry: EpisodeEntry, trace: str) -> list[FindingResult]:
    """One episode's SARIF results, located at the file, the episode named as a logical location:
    one per assertion that did not pass, one for a refused episode or a disagreeing tool verdict."""
    items: list[tuple[str, Literal["error", "warning", "note"], str]] = []
    if entry.refused is not None:
        items.append((entry.refused, "error", "The episode's calls and results are inconsistent; not judged."))
    for a in _failing(entry):
        text = f"{a.id} {a.result}"
        if a.provenance is not None:
            text += f": {call_words(a.provenance.call)}; value from {origin_words(a.provenance.origin)}"
        elif words := evidence_words(a):
            text += f": {words}"
        items.append((a.id, "error" if a.result in (FAIL, "error") else "note", text))
    if any(t.agreement == "disagree" for t in entry.tool_verdicts):
        items.append((MISMATCH, "warning", "The tool's own verdict disagrees with the scenario's."))
    return [FindingResult(rule, level, Text(text), (location(trace, shown(entry.episode)),)) for rule, level, text in items]


def render_one(report: FindingsReport, fmt: str, trace: str) -> str | Iterator[str]:
    """``report`` in output format ``fmt`` (json, table, markdown, junit, sarif); JSON in chunks,
    one episode at a time (a file of 50,000 episodes is never one string)."""
    if fmt == "json":
        return struct_chunks(report, "episodes")
    if fmt == "markdown":
        return one_markdown(report)
    if fmt == "junit":
        return one_junit(report, trace)
    if fmt == "sarif":
        return one_sarif(report, trace)
    return one_table(report)


# Campaigns ---------------------------------------------------------------------------------

COUNT_HEADERS = ["format", "policy", "mode", "episodes", "failed", "disagreements", "user-requested"]
DEMO_HEADERS = ["format", "policy", "assertion", "tool", "arguments sha256", "value from", "episodes", "first seen"]


def _count_rows(report: CampaignReport) -> list[list[object]]:
    return [
        [c.format, shown(c.policy), c.mode, c.episodes, c.failed, c.disagreements, c.user_requested]
        for c in report.counts
    ]


def _demo_rows(report: CampaignReport) -> list[list[object]]:
    return [
        [d.format, shown(d.policy), d.assertion, shown(d.tool), (d.arguments_sha256 or "-")[:16],
         ORIGIN_WORDS.get(d.origin, "-") if d.origin is not None else "-", d.episodes,
         f"{display_path(d.first_trace)} {d.first_episode}"]
        for d in report.distinct
    ]


def _campaign_head(report: CampaignReport) -> str:
    mode = "strict" if report.strict else "compatible on harness traces, strict on other formats"
    return (
        f"{report.files} file(s), {report.episodes} episode(s) judged ({mode}), {report.failed} failed; "
        f"{len(report.distinct) + report.distinct_overflow} distinct demonstration(s); "
        f"{report.skipped_total} file(s) skipped"
    )


def campaign_table(report: CampaignReport) -> str:
    parts = [_campaign_head(report), "", table(_count_rows(report), COUNT_HEADERS)]
    if report.distinct:
        parts += ["", "distinct demonstrations:", table(_demo_rows(report), DEMO_HEADERS)]
    if report.distinct_overflow:
        parts.append(f"({report.distinct_overflow} more not listed)")
    if report.skipped:
        parts += ["", "skipped files:", table([[display_path(s.trace), s.code] for s in report.skipped], ["file", "code"])]
    return "\n".join(parts) + "\n"


def campaign_markdown(report: CampaignReport) -> str:
    lines = ["# Findings campaign", "", f"- {_campaign_head(report)}", "", "## Per format and policy", "",
             *md_table(COUNT_HEADERS, _count_rows(report))]
    if report.distinct:
        lines += ["", "## Distinct demonstrations", "", *md_table(DEMO_HEADERS, _demo_rows(report))]
    if report.skipped:
        lines += ["", "## Skipped files", "", *md_table(["file", "code"], [[s.trace, s.code] for s in report.skipped])]
    return "\n".join(lines) + "\n"


def campaign_junit(report: CampaignReport) -> str:
    """One testcase per format and policy: a failure when any of its episodes failed."""
    from xml.etree.ElementTree import Element

    root = Element("testsuites", name="tracekit check")
    root.append(campaign_testsuite(report))
    return junit_text(root)


def campaign_testsuite(report: CampaignReport) -> Element:
    """The campaign's ``<testsuite>``: one testcase per format and policy."""
    from xml.etree.ElementTree import Element, SubElement

    failing = [c for c in report.counts if c.failed]
    suite = Element("testsuite", name="tracekit check", tests=str(len(report.counts)),
                    failures=str(len(failing)), errors="0")
    properties = SubElement(suite, "properties")
    for count in report.counts:
        SubElement(properties, "property", name=f"mode.{count.format}", value=count.mode)
    disagreements = sum(c.disagreements for c in report.counts)
    SubElement(properties, "property", name="disagreements", value=str(disagreements))
    for count in report.counts:
        case = SubElement(suite, "testcase", classname=f"tracekit.check.{count.format}", name=xml_safe(shown(count.policy)))
        if count.failed:
            node = SubElement(case, "failure", type="policy", message=f"{count.failed} of {count.episodes} episode(s) failed")
            node.text = f"{count.failed} of {count.episodes} episode(s) failed; {count.disagreements} disagreement(s)"
    for left in report.skipped:  # unreadable: a red error; a walked non-trace file: skipped
        skipped_case(suite, left)
    errors = sum(1 for left in report.skipped if left.error)
    suite.set("tests", str(len(report.counts) + len(report.skipped)))
    suite.set("errors", str(errors))
    suite.set("skipped", str(len(report.skipped) - errors))
    return suite


def skipped_case(suite: Element, left: SkippedFile) -> None:
    """A file that was not judged as a testcase of ``suite``: an ``<error>`` when it could not
    be read, else ``<skipped>``, typed with its code."""
    from xml.etree.ElementTree import SubElement

    case = SubElement(suite, "testcase", classname="tracekit.check.input", name=xml_safe(display_path(left.trace)))
    SubElement(case, "error" if left.error else "skipped", type=left.code, message=left.code)


def campaign_run(report: CampaignReport) -> FindingsRun:
    """One SARIF result per distinct demonstration, at the file where it was first seen."""
    results = [
        FindingResult(
            d.assertion, "error",
            Text(f"{d.assertion} fails through {shown(d.tool)} in {d.episodes} episode(s) ({d.format})"),
            (location(d.first_trace, shown(d.first_episode)),),
        )
        for d in report.distinct
    ]
    results += [
        FindingResult(
            left.code, "error" if left.error else "note",
            Text(f"{'Could not be read' if left.error else 'Skipped, not read as a trace'} ({left.code})."),
            (location(left.trace),),
        )
        for left in report.skipped
    ]
    text = "The tool's own verdict disagrees with the scenario's in {} episode(s) ({})"
    results += [FindingResult(MISMATCH, "warning", Text(text.format(c.disagreements, c.format)), ())
                for c in report.counts if c.disagreements]
    modes = tuple(sorted({f"{c.format}:{c.mode}" for c in report.counts}))
    rules = sorted({r.ruleId for r in results})
    return findings_run(rules, results, FindingsRunProperties("check", modes=modes))


def campaign_sarif(report: CampaignReport) -> str:
    """The campaign as a SARIF log of one run (:func:`campaign_run`)."""
    return sarif_text(campaign_run(report))


def render_campaign(report: CampaignReport, fmt: str) -> str:
    if fmt == "json":
        return _json(report)
    if fmt == "markdown":
        return campaign_markdown(report)
    if fmt == "junit":
        return campaign_junit(report)
    if fmt == "sarif":
        return campaign_sarif(report)
    return campaign_table(report)


__all__ = ["REPORT_VERSION", "CampaignReport", "EpisodeEntry", "FindingsReport", "SkippedFile",
           "render_campaign", "render_one", "shown"]
