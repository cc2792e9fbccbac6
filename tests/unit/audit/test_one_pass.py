"""The AgentGuard audit in one pass (docs/audit.md, "One pass"): the fold the verifier feeds gives
the same report as the kept events, and the command line keeps no list of events."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CORPUS
from tracekit.cli import audit_io
from tracekit.cli.audit_io import AuditJob, AuditOptions
from tracekit.formats.agentguard.verify import VerifyOptions, VerifyReport, verify_file
from tracekit.judging.audit import audit_agentguard
from tracekit.judging.audit.engine import AgentGuardFold

TRACES = sorted(
    [
        *(CORPUS / "valid").glob("*.jsonl"),
        *(CORPUS / "audit" / "agentguard").glob("*.jsonl"),
        *(CORPUS / "replay").glob("*.jsonl"),
        *(CORPUS / "invalid").glob("chain__*.jsonl"),
        *(CORPUS / "third_party" / "agentguard").glob("*.jsonl"),
    ]
)


@pytest.mark.parametrize("path", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("strict", [False, True])
def test_streamed_audit_equals_the_audit_of_kept_events(path: Path, strict: bool) -> None:
    kept = verify_file(path, VerifyOptions(keep_events=True, strict_sources=strict))
    events = AgentGuardFold()
    streamed = verify_file(path, VerifyOptions(observe=events.add, strict_sources=strict))
    assert streamed.events == []
    assert audit_agentguard(streamed, strict_sources=strict, events=events) == audit_agentguard(
        kept, strict_sources=strict
    )


def test_the_command_line_audits_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracekit.cli import trace_input

    seen: list[VerifyOptions] = []
    real = trace_input.verify_opened

    def spy(path: str, source: trace_input.Opened, options: VerifyOptions) -> VerifyReport:
        seen.append(options)
        report = real(path, source, options)
        assert report.events == []
        return report

    monkeypatch.setattr(trace_input, "verify_opened", spy)
    path = str(CORPUS / "valid" / "v3__with_containment.jsonl")
    report = audit_io.audit_file(AuditJob(path, path, True, AuditOptions(False, (), None)))
    assert report is not None and report.intact and report.demonstration
    assert len(seen) == 1
    assert not seen[0].keep_events and seen[0].observe is not None


def test_a_report_without_events_or_fold_is_not_audited_as_intact() -> None:
    path = CORPUS / "valid" / "v2__clean_run.jsonl"
    report = audit_agentguard(verify_file(path))
    assert report.intact is False and report.completeness == ()


@pytest.mark.parametrize("path", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_fold_sees_every_event_it_reads(path: Path) -> None:
    """AgentGuardFold hands each fold only the event types it reads: the same folds fed every
    event end in the same state."""
    kept = verify_file(path, VerifyOptions(keep_events=True))
    fold, whole = AgentGuardFold(kept.events), AgentGuardFold()
    for event in kept.events:
        whole.groups.add(event)
        whole.commands.add(event)
        whole.failures.add(event)
    assert (fold.failures.cut, fold.failures.bare) == (whole.failures.cut, whole.failures.bare)
    slots = ("sequences", "argv_bad", "cut", "untimed", "no_exit")
    assert [getattr(fold.commands, s) for s in slots] == [getattr(whole.commands, s) for s in slots]
    assert any(e.event_type == "agent_command" for e in kept.events) == bool(fold.commands.sequences)
