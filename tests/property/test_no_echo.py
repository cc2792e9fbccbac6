"""No diagnostic, in any format, ever repeats a canary planted anywhere in a hostile trace.

The canary goes into keys, values, paths, oversized strings, wrong types, event types and source
artifacts, at a position hypothesis chooses, in a real corpus trace; verify and show run through
the CLI in every format. A re-hashed (chain-valid) variant is checked too.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.helpers import CORPUS
from tracekit.cli.app import app
from tracekit.formats.agentguard.writer import read_draft, write_trace
from tracekit.kernel.canonical import agentguard_bytes

CANARY = "zqxcanary7731qxz"
BASES = [
    (CORPUS / "valid" / "v2__clean_run.jsonl").read_bytes(),
    (CORPUS / "valid" / "v3__with_containment.jsonl").read_bytes(),
    (CORPUS / "valid" / "v2__guard_summaries.jsonl").read_bytes(),
]
FORMS = [
    CANARY,
    "../" + CANARY,
    "/" + CANARY,
    "C:/" + CANARY,
    "//" + CANARY + "/share",
    CANARY + "\x1b[31m",
    CANARY * 300,
    CANARY.upper(),
]


def _locations(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _locations(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _locations(child, (*path, index))
    return found


def _plant(record: dict[str, Any], where: tuple[Any, ...], how: str, form: str) -> None:
    parent: Any = record
    for step in where[:-1]:
        parent = parent[step]
    target = parent[where[-1]] if where else record
    if how == "key" and isinstance(target, dict):
        target[form] = 1
    elif how == "rename" and where and isinstance(parent, dict):
        parent[form] = parent.pop(where[-1])
    elif how == "object" and where:
        parent[where[-1]] = {form: form}
    elif where:
        parent[where[-1]] = form
    else:
        record[form] = form


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1, 2), result.exit_code
    assert "Traceback" not in result.stdout + result.stderr
    return result.stdout + result.stderr


def _assert_no_echo(data: bytes, with_show: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        path.write_bytes(data)
        outputs = [
            _run(["verify", str(path)]),
            _run(["verify", str(path), "--format", "json"]),
            _run(["verify", str(path), "--canonical", "--strict-sources"]),
        ]
        if with_show:
            outputs += [_run(["show", str(path)]), _run(["show", str(path), "--format", "json"])]
    for text in outputs:
        assert CANARY not in text.lower()


@given(
    base=st.sampled_from(BASES),
    line_choice=st.integers(min_value=0, max_value=10_000),
    location_choice=st.integers(min_value=0, max_value=100_000),
    how=st.sampled_from(["value", "key", "rename", "object"]),
    form=st.sampled_from(FORMS),
)
def test_canary_is_never_echoed(base: bytes, line_choice: int, location_choice: int, how: str, form: str) -> None:
    lines = base.split(b"\n")[:-1]
    index = line_choice % len(lines)
    record = json.loads(lines[index])
    locations = _locations(record)
    where = locations[location_choice % len(locations)]
    _plant(record, where, how, form)
    lines[index] = agentguard_bytes(record)
    hostile = b"\n".join(lines) + b"\n"
    _assert_no_echo(hostile, with_show=True)
    # The same edit, re-hashed so the chain is valid: only schema and path rules can object.
    try:
        rechained = write_trace(read_draft(hostile))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return
    _assert_no_echo(rechained, with_show=False)


def test_canary_in_source_artifact_role_and_path() -> None:
    draft = read_draft(BASES[0])
    draft.header["source_artifacts"] = [
        {"path": "reports/" + CANARY + ".json", "required": True, "role": CANARY, "sha256": "0" * 64},
        {"path": CANARY + ".json", "required": False, "role": "manifest", "sha256": "1" * 64},
    ]
    data = write_trace(draft)
    _assert_no_echo(data, with_show=True)


def test_canary_in_a_valid_traces_identity_is_withheld_by_show() -> None:
    draft = read_draft(BASES[0])
    draft.header["agent_name"] = CANARY + "\x1b]0;title\x07"
    draft.header["execution_id"] = CANARY * 20
    _assert_no_echo(write_trace(draft), with_show=True)
