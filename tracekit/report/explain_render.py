"""``tracekit explain``'s report: one code's entry of the catalogue (tracekit/kernel/errors.py and
tracekit/kernel/code_help.py), or the list of every code."""

from __future__ import annotations

import msgspec

from tracekit import REPORT_VERSION
from tracekit.report.jsonout import dumps_struct
from tracekit.report.text import blocks, md_report, md_table, table


class CodeEntry(msgspec.Struct, frozen=True):
    """What one code means, why it matters and what to do."""

    code: str
    severity: str
    exit: str
    message: str
    why: str
    action: str


class CodeList(msgspec.Struct, frozen=True):
    """Every code, with its severity and fixed text."""

    codes: tuple[CodeEntry, ...]


def entry(code: str) -> CodeEntry:
    """The catalogue's entry for a known ``code`` (a :class:`tracekit.kernel.errors.Code` value)."""
    from tracekit.kernel.code_help import FAMILY_HELP, FamilyHelp
    from tracekit.kernel.docgen import exit_of
    from tracekit.kernel.errors import CODE_INFO, RETIRED, Code

    known = Code(code)
    info = CODE_INFO[known]
    help_ = FAMILY_HELP.get(code.split(".")[0], FamilyHelp("-", "-"))
    means = info.message
    if known in RETIRED:  # docs/cli.md, "One code per mistake"
        means += f" No longer emitted: {RETIRED[known].value} says it now."
    return CodeEntry(code, info.severity.value, exit_of(known), means, help_.why, help_.action)


def render_entry(item: CodeEntry, fmt: str, exit_code: int) -> str:
    """One code in ``fmt`` (table, json, markdown)."""
    rows = [
        ("code", item.code),
        ("severity", item.severity),
        ("exit", item.exit),
        ("means", item.message),
        ("why", item.why),
        ("what to do", item.action),
    ]
    if fmt == "json":
        return dumps_struct(item, command="explain", exit_code=exit_code, report_version=REPORT_VERSION)
    if fmt == "markdown":
        return "\n".join(md_report("explain", rows)) + "\n"
    return blocks(table(rows, tablefmt="plain", widths=(None, 88)))


def render_list(items: CodeList, fmt: str, exit_code: int) -> str:
    """Every code in ``fmt``."""
    rows = [(i.code, i.severity, i.exit, i.message) for i in items.codes]
    headers = ("code", "severity", "exit", "message")
    if fmt == "json":
        return dumps_struct(items, command="explain", exit_code=exit_code, report_version=REPORT_VERSION)
    if fmt == "markdown":
        return "\n".join(["# tracekit explain", "", *md_table(headers, rows)]) + "\n"
    return blocks(table(rows, headers, widths=(None, None, None, 72)))
