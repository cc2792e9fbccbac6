"""The file side of findings on every format (docs/findings.md, "Command line"): which format a
file is, the files of a campaign, and the per-file jobs that ``check`` and ``metamorphic
--scenario`` hand to an executor.

Files are read only through :mod:`tracekit.formats.reading` (the format layer's one edge); a
job reads from an absolute path, so a local pool or a Dask worker can run it. Nothing here
prints input content: failures are stable codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from tracekit.cli.common import Inputs, collect_inputs
from tracekit.formats.base import FormatError
from tracekit.judging.findings.campaign import JudgedEpisode
from tracekit.judging.findings.consistency import check_episode
from tracekit.judging.findings.judge import judge_episode
from tracekit.judging.findings.sweep import SkippedEpisode, SweepCase
from tracekit.kernel.errors import Code, Finding, TracekitError, finding
from tracekit.kernel.evidence import EvidenceFile

if TYPE_CHECKING:
    from tracekit.formats.base import EpisodeStream
    from tracekit.judging.findings.judge import EpisodeVerdict
    from tracekit.judging.harness.scenario import Scenario
    from tracekit.kernel.evidence import Episode

EVIDENCE_SUFFIXES = (".json", ".jsonl", ".eval")
"""Files a folder walk picks up; a file named on the command line is read whatever its name."""
NOT_A_TRACE = ".expected.json"
"""Ground-truth files beside the corpus logs (docs/formats.md): never traces, skipped in walks."""


def sniffed_format(path: str) -> str | None:
    """The name of the format the file's first bytes show, or None when no format accepts them
    (or the file cannot be opened: the caller's own reader then reports that)."""
    from tracekit.formats import registry
    from tracekit.formats.reading import open_source

    try:
        with open_source(path) as source:
            found = registry.detect(registry.read_prefix(source), source.name_suffix)
    except FormatError:
        return None
    return None if found is None else found.name


def not_a_trace(path: str) -> bool:
    """A walked file that opens, holds bytes, and whose first bytes no format accepts: skipped
    as not a trace. A file that is missing, unreadable or empty is not skipped: its reader
    reports it (``format.unreadable``, ``format.empty``: docs/cli.md, "One code per mistake"),
    so it never vanishes from a campaign."""
    from tracekit.formats import registry
    from tracekit.formats.reading import open_source

    try:
        with open_source(path) as source:
            found = registry.detect(registry.read_prefix(source), source.name_suffix)
    except FormatError:
        return False
    return found is None


def load(path: str, input_format: str | None) -> EvidenceFile:
    """The evidence of ``path``; raises :class:`TracekitError` with the format layer's code."""
    from tracekit.formats.reading import load_file

    return load_file(path, input_format)


def campaign_files(paths: Sequence[str]) -> tuple[Inputs, set[str], int]:
    """The files of a campaign: folders walked for :data:`EVIDENCE_SUFFIXES` (ground-truth
    ``*.expected.json`` files left out and counted), the set of files named on the command line
    (their errors are the user's: exit 2), and how many ground-truth files were left out."""
    walked = collect_inputs(paths, EVIDENCE_SUFFIXES)
    named = {raw for raw in paths if raw == "-" or not Path(raw).is_dir()}
    kept = [f for f in walked.files if f in named or not f.endswith(NOT_A_TRACE)]
    return Inputs(kept, walked.too_deep), named, len(walked.files) - len(kept)


def unknown_format() -> TracekitError:
    """The error for a file no format accepts."""
    from tracekit.formats import registry

    return TracekitError(finding(Code.FORMAT_UNKNOWN, formats=registry.supported()))


class SweepJob(Struct, frozen=True):
    """One file of a metamorphic sweep over evidence, for an executor (picklable, reads from an
    absolute path)."""

    path: str
    name: str
    """The path as the user spelled it (posix), used in reports."""
    named: bool
    """Named on the command line: a file no format accepts is then an error, not skipped."""
    scenario: bytes
    strict: bool | None
    """``--strict`` (True), ``--compatible`` (False), or None: the mode of the file's format
    (docs/cli.md, "Verdicts and modes")."""
    trials: int
    transforms: tuple[str, ...]


class SweepPart(Struct, frozen=True):
    """One file swept: its cases and skipped episodes, or the code that stopped it."""

    name: str
    code: str | None
    episodes: int = 0
    cases: tuple[SweepCase, ...] = ()
    skipped: tuple[SkippedEpisode, ...] = ()
    skipped_total: int = 0
    strict: bool = True
    """The mode the file was judged in."""


def sweep_job(job: SweepJob) -> SweepPart:
    """Load one file and sweep every consistent episode (tracekit/judging/findings/sweep.py)."""
    from tracekit.formats.reading import consume_file
    from tracekit.judging.findings.sweep import SweepTally, sweep_file
    from tracekit.judging.findings.transforms import BY_NAME
    from tracekit.judging.harness.model import judging_strict
    from tracekit.judging.harness.scenario import parse_scenario

    if not job.named and not_a_trace(job.path):
        return SweepPart(job.name, Code.FORMAT_UNKNOWN.value)
    transforms = [BY_NAME[name] for name in job.transforms]
    scenario = parse_scenario(job.scenario)

    def swept(stream: EpisodeStream) -> SweepPart:
        tally = SweepTally.new(transforms)
        strict = judging_strict(False, stream.format) if job.strict is None else job.strict
        cases = sweep_file(job.name, stream, scenario, tally, transforms, job.trials, strict)
        return SweepPart(job.name, None, tally.episodes, tuple(cases), tuple(tally.skipped), tally.skipped_total, strict)

    try:
        return consume_file(job.path, swept)
    except TracekitError as error:
        return SweepPart(job.name, error.finding.code.value)


class CheckJob(Struct, frozen=True):
    """One file of a ``check`` findings campaign, for an executor (picklable, reads from an
    absolute path, or ``-`` for standard input in-process)."""

    path: str
    name: str
    """The path as the user spelled it, used in reports."""
    named: bool
    """Named on the command line: a file no format accepts is then an error, not skipped."""
    scenario: bytes
    """The scenario's YAML, already known to parse."""
    policy: str
    """The scenario's id."""
    strict: bool
    input_format: str | None = None


class CheckPart(Struct, frozen=True):
    """One file judged: its format and judged episodes, the consistency codes of the episodes
    it refused (in order), or why it was not read."""

    name: str
    policy: str
    skipped: bool = False
    """Found by walking a folder and no format accepts it: not a trace."""
    error: Finding | None = None
    """It could not be loaded (exit 2)."""
    format: str = ""
    judged: tuple[JudgedEpisode, ...] = ()
    refused: tuple[Code, ...] = ()
    strict: bool = False
    """The mode its episodes were judged in (docs/cli.md, "Verdicts and modes")."""


def check_job(job: CheckJob) -> CheckPart:
    """Load one file and judge every episode under the scenario (docs/findings.md, "Campaigns"):
    an episode that fails the consistency checks is refused, not judged."""
    from tracekit.formats.base import in_order
    from tracekit.formats.reading import consume_file
    from tracekit.judging.findings.campaign import judged
    from tracekit.judging.harness.model import judging_strict
    from tracekit.judging.harness.scenario import parse_scenario

    if not job.named and job.input_format is None and not_a_trace(job.path):
        return CheckPart(job.name, job.policy, skipped=True)
    scenario = parse_scenario(job.scenario)

    def checked(stream: EpisodeStream) -> CheckPart:
        strict = judging_strict(job.strict, stream.format)
        done: list[tuple[Any, JudgedEpisode]] = []
        refused: list[tuple[Any, Code]] = []
        for key, episode in stream.pairs:
            verdict = judge(scenario, episode, strict)
            if isinstance(verdict, Code):
                refused.append((key, verdict))
            else:
                done.append((key, judged(episode, verdict)))
        return CheckPart(
            job.name, job.policy, format=stream.format, judged=tuple(in_order(done)),
            refused=tuple(in_order(refused)), strict=strict,
        )

    try:
        return consume_file(job.path, checked, job.input_format)
    except TracekitError as error:
        return CheckPart(job.name, job.policy, error=error.finding)


def judge(scenario: Scenario, episode: Episode, strict: bool) -> EpisodeVerdict | Code:
    """One episode judged, or the consistency code that refuses it (docs/findings.md,
    "Consistency")."""
    refused = check_episode(episode)
    return refused[0].code if refused else judge_episode(scenario, episode, strict)
