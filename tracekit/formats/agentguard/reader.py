"""AgentGuard execution traces as a trace format (docs/formats.md, "AgentGuard").

Detection: the first line is a JSON object whose top-level keys show an AgentGuard header
(``record_type``, ``schema``, or the ``agent_adapter``/``agentguard_version`` pair). Loading runs
the full verifier (docs/trace-format.md steps 1-8, sources not checked): a trace that does not
verify is not evidence, and its first error is raised with verify's own code.

AgentGuard records what the agent's *process* did (the command that ran it, file changes, guard
verdicts), not the conversation: there are no messages, model turns or tool calls to import, and
none are invented. The episode carries the run facts and names the loss ``process_level_only``.
"""

from __future__ import annotations

from tracekit.formats import envelope
from tracekit.formats.base import FormatError, FormatLimits, Source
from tracekit.kernel.errors import Code, Severity, finding
from tracekit.kernel.evidence import Episode, EvidenceFile, Provenance, RunFacts

NAME = "agentguard"
_MARKERS = (b"agent_adapter", b"agentguard_version", b"agentguard_commit")


class AgentGuardFormat:
    """AgentGuard JSON Lines traces, schema versions 1 to 3."""

    name = NAME

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """docs/formats.md, "AgentGuard", detection: header keys on the first line."""
        first_line = envelope.body(prefix).split(b"\n", 1)[0]
        keys = envelope.top_level(first_line)
        if not keys:
            return False
        if envelope.string_equals(keys.get(b"record_type", b""), b"header"):
            return True
        if envelope.string_equals(keys.get(b"schema", b""), b"agentguard.execution-trace"):
            return True
        return sum(marker in keys for marker in _MARKERS) >= 2

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        from tracekit.formats.agentguard.verify import VerifyOptions, verify_stream

        source.handle.seek(0)
        report = verify_stream(source.handle, VerifyOptions(check_sources=False))
        errors = [f for f in report.findings if f.severity is Severity.ERROR]
        if errors:
            raise FormatError(errors[0])
        header = report.header
        if header is None:  # verify reports a missing header as an error; kept for mypy
            raise FormatError(finding(Code.LOAD_NO_EVENTS))
        provenance = [Provenance("facts.tool_version", "agentguard:header.agentguard_version")]
        if header.agent_model is not None:
            provenance.append(Provenance("facts.model", "agentguard:header.agent_model"))
        if header.agentguard_commit is not None:
            provenance.append(
                Provenance("facts.harness_revision", "agentguard:header.agentguard_commit")
            )
        provenance.append(Provenance("facts.task", "agentguard:header.task_id"))
        facts = RunFacts(
            tool=NAME,
            tool_version=header.agentguard_version,
            model=header.agent_model,
            harness_revision=header.agentguard_commit,
            task=header.task_id,
        )
        episode = Episode(
            id=header.trace_id,
            facts=facts,
            provenance=tuple(provenance),
            losses=("process_level_only",),
        )
        return EvidenceFile(NAME, str(header.schema_version), (episode,))


FORMAT = AgentGuardFormat()
