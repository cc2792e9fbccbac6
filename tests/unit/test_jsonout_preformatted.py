"""An item msgspec renders (report/jsonout.py, ``preformatted``) is written byte for byte as the
json module writes it, and an item only the json module renders exactly is left to it."""

from __future__ import annotations

import json

import msgspec
import pytest

from tracekit import REPORT_VERSION
from tracekit.judging.audit import summarise
from tracekit.judging.audit.model import EpisodeAudit, FieldStatus, audit_report, note
from tracekit.kernel.errors import Code
from tracekit.report import audit_render
from tracekit.report.audit_render import render_json
from tracekit.report.jsonout import Shared, Streamed, dumps, dumps_chunks, preformatted

ITEMS = [
    {"id": "a", "rows": [{"field": "x", "status": "present", "n": 3, "ok": True, "none": None}], "empty": [], "map": {}},
    {"b": [[1, 2], [], [{"z": 0}]], "a": "plain text, (with) [brackets] and: colons"},
]


@pytest.mark.parametrize("item", ITEMS)
def test_a_preformatted_item_is_the_json_modules_bytes(item: dict[str, object]) -> None:
    done = preformatted(msgspec.json.encode(item, order="sorted"))
    assert done is not None
    head = {"report_version": 1}
    nested = {"name": "t", "items": Streamed([done, done])}
    expected = dumps({**head, "traces": [{"name": "t", "items": [item, item]}]})
    assert "".join(dumps_chunks(head, {"traces": [nested]})) == expected
    assert done == json.dumps(item, indent=2, sort_keys=True, ensure_ascii=True)


@pytest.mark.parametrize("text", ["caf\u00e9", "tab\there", 'quote"d', "back\\slash", "del\x7f", "nul\x00"])
def test_an_item_with_an_escape_or_past_ascii_is_left_to_the_json_module(text: str) -> None:
    assert preformatted(msgspec.json.encode({"id": text}, order="sorted")) is None


def _episode(label: str, where: str, findings: int) -> EpisodeAudit:
    rows = (FieldStatus("seed", "missing", where, True), FieldStatus("scorer", "present", "facts", False))
    found = tuple(note(Code.AUDIT_FIELD_MISSING, where=where, field="seed") for _ in range(findings))
    return EpisodeAudit(label, rows, found)


LABELS = ["s1", "s2", "caf\u00e9", 'quo"te', "del\x7f", "s1", "sha256:0123456789abcdef", ""]


def test_episodes_that_share_their_tables_are_written_as_the_json_module_writes_them() -> None:
    """audit -f json renders each distinct (completeness, findings) pair once and each episode
    as that text up to its id (report/audit_render.py, ``_Episodes``): the bytes are the json
    module's, whatever the ids and pairs, in any order, within a file and across files."""
    episodes = [
        _episode(label, where, findings)
        for where in ("facts.seed", "caf\u00e9", "back\\slash")
        for findings in (0, 2)
        for label in LABELS
    ]
    reports = [
        audit_report("a.eval", "inspect", readable=True, intact=None, episodes=tuple(episodes)),
        audit_report("b.eval", "inspect", readable=True, intact=None, episodes=tuple(reversed(episodes))),
    ]
    summary = summarise(reports)
    document = {
        "report_version": REPORT_VERSION,
        "exit_code": 0,
        "summary": msgspec.to_builtins(summary),
        "traces": [msgspec.to_builtins(r) for r in reports],
    }
    assert render_json(reports, summary) == dumps(document)
    shared = sum(isinstance(e, Shared) for e in map(audit_render._Episodes().element, episodes))
    # the plain pairs (where "facts.seed", 0 or 2 findings) with a plain id (5 of LABELS), but
    # the first episode of each pair, which is rendered whole
    assert shared == 2 * (5 - 1)
