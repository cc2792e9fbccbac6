"""File access for ``tracekit check``: bounded reads, suite discovery and suite jobs.

A scenario or trace is read through the format layer's one bounded reader
(:func:`tracekit.formats.reading.read_capped`), which never reads more than the cap plus one
byte, so an oversized or endless file is refused without being buffered whole; folders and
sockets are refused before reading. A missing, unreadable or empty file keeps the reading edge's
code (docs/cli.md, "One code per mistake"); only the size bound becomes check's own
(``harness.*_too_large``). Failures are findings with fixed text.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from tracekit.cli.common import Inputs, collect_inputs, is_regular_file
from tracekit.cli.findings_io import CheckJob, CheckPart
from tracekit.judging.harness.evaluate import SuiteEntry, SuitePair
from tracekit.judging.harness.scenario import SUFFIXES
from tracekit.kernel.errors import Code, ExitCode, Finding, TracekitError, finding
from tracekit.kernel.limits import HARNESS_LIMITS, HARNESS_SCENARIO_LIMITS

if TYPE_CHECKING:
    from tracekit.judging.harness.scenario import Scenario


def read_bounded(path: str, cap: int, too_large: Code) -> bytes:
    """Up to ``cap`` bytes of the file ``path`` (a file named ``-`` too: never standard input)
    through the one bounded reader; see :func:`read_input`."""
    return read_input(f"./{path}" if path == "-" else path, cap, too_large)


def read_input(path: str, cap: int, too_large: Code) -> bytes:
    """Up to ``cap`` bytes of ``path`` (``-``: standard input) through the one bounded reader
    (:func:`tracekit.formats.reading.read_capped`); raise :class:`TracekitError` with the reading
    edge's codes, the same in every command (docs/cli.md, "One code per mistake"):
    ``format.unreadable`` when it is missing, cannot be opened or is a folder or socket,
    ``format.empty`` for no bytes, and the caller's ``too_large`` beyond ``cap``."""
    from tracekit.formats.reading import read_capped

    try:
        return read_capped(path, cap)
    except TracekitError as error:
        if error.finding.code is Code.FORMAT_TOO_LARGE:
            raise TracekitError(finding(too_large, limit=cap)) from None
        raise TracekitError(error.finding) from None


def read_scenario(path: str) -> bytes:
    """A scenario's bytes; its name must end in .yaml or .yml, as upstream requires."""
    if not path.lower().endswith(SUFFIXES):
        raise TracekitError(finding(Code.HARNESS_SCENARIO_SUFFIX))
    return read_bounded(path, HARNESS_SCENARIO_LIMITS.total_bytes, Code.HARNESS_SCENARIO_TOO_LARGE)


def scenario_or_exit(path: Path) -> tuple[bytes, Scenario]:
    """A ``--scenario`` option's bytes and parsed scenario, read and validated once before any
    work; when unusable, its code located at the path as given, and exit 2."""
    import typer

    from tracekit.cli.common import diag
    from tracekit.judging.harness.scenario import parse_scenario

    try:
        data = read_scenario(str(path))
        return data, parse_scenario(data)
    except TracekitError as error:
        diag(error.finding, str(path))
        raise typer.Exit(ExitCode.ERROR) from None


def read_trace(path: str) -> bytes:
    """A harness trace's bytes (``-``: standard input), capped at ``HARNESS_LIMITS.total_bytes``."""
    return read_input(path, HARNESS_LIMITS.total_bytes, Code.HARNESS_TRACE_TOO_LARGE)


def suite_scenario(path: str) -> bytes | Finding:
    """For the suite: the bytes, or the finding that says why they could not be read."""
    try:
        return read_scenario(path)
    except TracekitError as error:
        return error.finding


def suite_trace(path: str) -> bytes | Finding | None:
    """For the suite: None when no file is there, else the bytes or the read finding."""
    if not os.path.lexists(path):
        return None
    if not is_regular_file(path):  # a FIFO or device in the trace folder: never opened
        return finding(Code.FORMAT_UNREADABLE)
    try:
        return read_trace(path)
    except TracekitError as error:
        return error.finding


def discover(paths: list[str]) -> Inputs:
    """Scenario files: folders are walked (sorted, symlinked folders not followed) for
    ``*.yaml``/``*.yml``; files named on the command line are kept whatever their suffix."""
    return collect_inputs(paths, SUFFIXES)



class SuiteJob(Struct, frozen=True):
    """One step of a suite, for an executor: a scenario to pair with its trace (read from
    ``source``, the trace's absolute path), or an entry already decided (passed through)."""

    step: SuiteEntry | SuitePair
    source: str = ""
    strict: bool = False


class SuiteRow(Struct, frozen=True):
    """A suite step's result: upstream's entry, and whether the judged trace's recorded outcome
    disagrees with the entry's result (None when no trace was judged: not known, never false;
    docs/harness.md, "Results and output formats")."""

    entry: SuiteEntry
    disagrees: bool | None = None


def suite_work(job: SuiteJob | CheckJob) -> SuiteRow | CheckPart:
    """Suite mode's one worker function: a harness scenario's row (docs/harness.md, "Suite
    mode"), or one file of a scenario paired with a folder (docs/findings.md, "Command line")."""
    from tracekit.cli.check_parts import recorded_disagrees
    from tracekit.cli.findings_io import check_job
    from tracekit.judging.harness.evaluate import judge_pair

    if not isinstance(job, SuiteJob):
        return check_job(job)
    if isinstance(job.step, SuiteEntry):
        return SuiteRow(job.step)
    entry, trace = judge_pair(job.step, suite_trace(job.source), job.strict)
    return SuiteRow(entry, None if trace is None else recorded_disagrees(trace, entry.result))
