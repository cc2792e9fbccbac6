"""The reports of ``tracekit attest`` and of ``tracekit verify FILE.intoto.jsonl``
(docs/attest.md): test ids, results, digests and codes, never an input's content."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracekit.report import jsonout
from tracekit.report.text import display_path, fields, md_table, table

REPORT_VERSION = 1


def _rows(statements: Sequence[dict[str, Any]]) -> list[list[object]]:
    return [
        [
            s.get("line", i + 1),
            s["kind"],
            s.get("check") or "-",
            s.get("result") or "-",
            ", ".join(s.get("failed", ()) or s.get("warned", ()) or s.get("properties", ())) or "-",
        ]
        for i, s in enumerate(statements)
    ]


HEADERS = ("line", "statement", "check", "result", "failed / warned tests, or properties")


def render(command: str, head: dict[str, Any], statements: list[dict[str, Any]], findings: list[dict[str, Any]], fmt: str) -> str:
    """``head``: the path, exit code and counts; ``statements`` one row per envelope."""
    if fmt == "json":
        document = {"report_version": REPORT_VERSION, "command": command, **head}
        return jsonout.dumps({**document, "statements": statements, "findings": findings})
    notes = [[f["severity"], f["code"], f["message"]] for f in findings]
    shown = [(k, display_path(v) if k in ("path", "output") else v) for k, v in head.items()]
    if fmt == "markdown":
        lines = [f"# tracekit {command}", "", *md_table(("field", "value"), shown), ""]
        lines += ["## Statements", "", *md_table(HEADERS, _rows(statements)), ""]
        if notes:
            lines += ["## Findings", "", *md_table(("severity", "code", "message"), notes), ""]
        return "\n".join(lines)
    blocks = [fields(shown), table(_rows(statements), HEADERS)]
    if notes:
        blocks.append(table(notes, ("severity", "code", "message")))
    return "\n\n".join(blocks) + "\n"
