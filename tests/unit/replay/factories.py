"""Small builders for replay unit tests: evidence, policy snapshots and verified traces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from gen import base

from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.agentguard.verify import VerifyOptions, VerifyReport, verify_bytes
from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.judging.replay.evidence import CommandEvidence, Evidence, TestEvidence


def policy(**overrides: Any) -> ag.PolicySnapshot:
    """The corpus base policy (gen/base.py) as the typed snapshot, with overrides."""
    return msgspec.convert(base.policy_snapshot(**overrides), ag.PolicySnapshot, strict=True)


def cmd(
    text: str, *, blocked: bool = False, executed: bool = True, role: str = "repository"
) -> CommandEvidence:
    return CommandEvidence(
        command_text=text,
        argv=tuple(text.split()),
        working_directory_role=role,
        exit_code=0,
        executed=executed,
        blocked=blocked,
        timed_out=False,
        policy_mode="enforce",
        matched_patterns=(),
    )


def evidence(
    modified: Sequence[str] = ("src/widget.py",),
    added: Sequence[str] = (),
    deleted: Sequence[str] = (),
    *,
    lines: tuple[int, int] = (4, 2),
    test_exit: int | None = 0,
    test_command: str = "python -m pytest -q",
    timed_out: bool = False,
    commands: Sequence[CommandEvidence] = (),
) -> Evidence:
    return Evidence(
        task_id="task",
        modified_files=tuple(modified),
        added_files=tuple(added),
        deleted_files=tuple(deleted),
        lines_added=lines[0],
        lines_deleted=lines[1],
        test=TestEvidence(test_command, test_exit, timed_out, test_exit == 0 and not timed_out),
        commands=tuple(commands),
    )


def verified(draft: DraftTrace, strict_sources: bool = False) -> VerifyReport:
    """Write ``draft`` canonically and verify it keeping events; asserts it is intact."""
    report = verify_bytes(
        write_trace(draft), VerifyOptions(keep_events=True, strict_sources=strict_sources)
    )
    assert report.intact, [f.code for f in report.findings]
    return report
