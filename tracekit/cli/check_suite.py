"""``tracekit check --suite`` (docs/harness.md, "Suite mode"; docs/findings.md, "Command line").

Scenarios are read and planned in order here (repeated ids need the order); each paired trace,
and each file of a folder paired with a scenario, is one job on the executor (docs/cli.md,
"Executors"). Memory stays bounded by the executor's window: each suite entry is spooled to an
anonymous temporary file as it arrives and only counts, output names and spool offsets are
kept. JSON output and ``--output-dir`` stream from the spool; the table, Markdown, JUnit and
SARIF renderers take the whole typed suite, read back from it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tracekit.cli.check_io import SuiteRow
from tracekit.cli.check_parts import SUMMARY_NAME, CheckOptions, mismatch, tally_line
from tracekit.cli.common import EXIT_ERROR, EXIT_FAIL, EXIT_OK, diag, fail, worst
from tracekit.cli.sink import check_folder, emit, make_folder, write_files
from tracekit.cli.spool import Spool
from tracekit.judging.harness.evaluate import INVALID_INPUT, SuiteCounts, SuiteEntry, SuiteResult
from tracekit.judging.harness.model import semantics
from tracekit.kernel.errors import Code, finding
from tracekit.report.jsonout import set_head

if TYPE_CHECKING:
    from tracekit.cli.check_findings import Campaign
    from tracekit.report.findings_render import CampaignReport


class EntrySpool:
    """Suite rows (entries, and whether each judged trace's recorded outcome disagrees) in
    arrival (scenario) order, in the one spool (cli/spool.py); memory keeps the counts, the
    disagreements, whether any input was invalid, and the id and offset of each evaluated entry
    (for ``--output-dir``)."""

    def __init__(self) -> None:
        self._spool: Spool[SuiteRow] = Spool(SuiteRow)
        self.counts = SuiteCounts()
        self.disagreements = 0
        self.invalid = False
        self.missing = 0
        self.evaluated: list[tuple[str, int]] = []

    def add(self, row: SuiteRow) -> None:
        """Spool one row and count it."""
        offset = self._spool.add(row)
        entry = row.entry
        self.counts = self.counts.add(entry.result)
        self.disagreements += bool(row.disagrees)
        self.invalid = self.invalid or entry.error_reason in INVALID_INPUT
        self.missing += entry.error_reason == "missing_trace"
        if entry.assertions is not None and entry.scenario_id is not None:
            self.evaluated.append((entry.scenario_id, offset))

    def rows(self) -> Iterator[SuiteRow]:
        """Every row, in order."""
        return self._spool.read()

    def entries(self) -> Iterator[SuiteEntry]:
        """Every entry, in order."""
        return (row.entry for row in self._spool.read())

    def at(self, offset: int) -> SuiteEntry:
        """The entry spooled at ``offset``."""
        return self._spool.at(offset).entry

    def close(self) -> None:
        self._spool.close()

    def head(self, strict: bool) -> SuiteResult:
        """The suite's aggregate and counts, without its entries (they stay in the spool)."""
        return SuiteResult(self.counts.result, self.counts, (), semantics(strict))

def _document(spool: EntrySpool | None, report: CampaignReport | None, fmt: str, strict: bool) -> Iterator[str]:
    """Suite mode's output in ``fmt`` (report/suite_render.py's ``suite_document``); JSON is
    streamed from the spool."""
    from tracekit.report.harness_findings import SuiteRows
    from tracekit.report.suite_render import suite_document, suite_json_chunks

    if spool is not None and fmt == "json":
        yield from suite_json_chunks(spool.head(strict), spool.entries(), report)
        return
    rows = None
    if spool is not None:
        rows = SuiteRows(spool.head(strict), tuple((r.entry, r.disagrees) for r in spool.rows()))
    yield suite_document(rows, report, fmt)


def _outcome_file(spool: EntrySpool, offset: int, strict: bool) -> Iterator[bytes]:
    """One evaluated scenario's ``<id>.json``, read back from the spool when it is written."""
    from tracekit.report.harness_json import render

    outcome = spool.at(offset).outcome(strict)
    if outcome is not None:
        yield render(outcome).encode("utf-8")


def run_suite(paths: list[str], trace_dir: Path, out_dir: Path | None, opts: CheckOptions) -> int:
    """Run a suite (module docstring); returns the exit code (docs/harness.md, "Exit codes")."""
    from tracekit.cli import check_io, findings_io
    from tracekit.cli.check_findings import Campaign, split_suite, stream
    from tracekit.judging.harness.evaluate import plan_suite

    for raw in paths:
        if not os.path.exists(raw):
            fail(Code.CLI_FOLDER_MISSING, option="--suite")
    if not trace_dir.is_dir():
        fail(Code.HARNESS_TRACE_DIR_MISSING)
    inputs = check_io.discover(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    strict, force = opts.strict, opts.force
    if out_dir is not None:
        check_folder(out_dir, [SUMMARY_NAME], force)
    pairs, third = split_suite(inputs.files, trace_dir)
    jobs: list[check_io.SuiteJob | findings_io.CheckJob] = []
    spool = EntrySpool() if pairs or not third else None
    if spool is not None:
        for step in plan_suite(pairs, str(trace_dir)):
            source = "" if isinstance(step, SuiteEntry) else os.path.abspath(step.trace_path)
            jobs.append(check_io.SuiteJob(step, source, strict))
    campaign: Campaign | None = None
    deep = inputs.note()
    if third:
        campaign = Campaign(opts)
        for scenario, data, folder in third:
            walked, _, _ = findings_io.campaign_files([str(folder)])
            jobs.extend(campaign.jobs(scenario, data, walked.files, set()))
            deep = worst(deep, walked.note())
    try:
        # One executor for the whole suite: results in job order, folded as they arrive.
        for done in stream(opts, check_io.suite_work, jobs):
            if isinstance(done, SuiteRow):
                if spool is not None:
                    spool.add(done)
            elif campaign is not None:
                campaign.fold(done)
        return _finish(spool, campaign, out_dir, opts, deep)
    finally:
        if spool is not None:
            spool.close()


def _finish(
    spool: EntrySpool | None, campaign: Campaign | None, out_dir: Path | None, opts: CheckOptions, deep: int
) -> int:
    """Check the output names, write the outputs, report, and decide the exit code."""

    strict, force = opts.strict, opts.force
    names = [f"{scenario_id}.json" for scenario_id, _ in spool.evaluated] if spool is not None else []
    if out_dir is not None:
        if SUMMARY_NAME in names:
            fail(Code.HARNESS_OUTPUT_NAME_COLLISION)
        check_folder(out_dir, [*names, SUMMARY_NAME], force)
    report = campaign.report() if campaign is not None else None
    code, nothing = _suite_exit(spool, campaign, opts, deep)
    set_head(exit_code=code)
    emit(_document(spool, report, opts.format, strict), opts.output, force)
    if spool is not None:
        mismatch(spool.disagreements, "suite")
    if report is not None:
        mismatch(sum(c.disagreements for c in report.counts), "campaign")
    if out_dir is not None:
        make_folder(out_dir)
        files: list[tuple[Path, Iterator[bytes]]] = []
        if spool is not None:
            offsets = [offset for _, offset in spool.evaluated]
            files += [(out_dir / n, _outcome_file(spool, o, strict)) for n, o in zip(names, offsets, strict=True)]
        summary = (chunk.encode("utf-8") for chunk in _document(spool, report, "json", strict))
        files.append((out_dir / SUMMARY_NAME, summary))
        write_files(files, force)
    if spool is not None:
        for entry in spool.entries():
            problem = entry.problem
            if problem is not None and entry.error_reason in INVALID_INPUT:
                diag(problem, "suite")
    if not opts.quiet:
        if spool is not None:
            disagree = f", {spool.disagreements} disagree with the tool's verdict" if spool.disagreements else ""
            print(tally_line("scenarios", spool.counts) + disagree, file=sys.stderr)
        if campaign is not None and report is not None:
            print(campaign.summary(report), file=sys.stderr)
    if nothing:
        # Nothing was checked at all: a CI job must not stay green (docs/cli.md, "check").
        diag(finding(Code.CLI_NOTHING_CHECKED, count=spool.counts.total if spool is not None else 0))
    return code


def _suite_exit(spool: EntrySpool | None, campaign: Campaign | None, opts: CheckOptions, deep: int) -> tuple[int, bool]:
    """The suite's exit code, and whether nothing at all was checked."""
    from tracekit.judging.harness import gates

    found = campaign.exit_code() if campaign is not None else EXIT_OK
    if spool is None:
        return worst(found, deep), False
    if spool.invalid:
        return EXIT_ERROR, False
    if campaign is None and spool.counts.total and spool.missing == spool.counts.total:
        return EXIT_ERROR, True
    gated = EXIT_FAIL if opts.exit_on_fail and gates(spool.counts.result, opts.strict) else EXIT_OK
    return worst(gated, found, deep), False
